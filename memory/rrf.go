package memory

import "sort"

// RRFK is the reciprocal rank fusion constant of Cormack et al. (2009).
const RRFK = 60

// ModeScore is one mode's view of a result: its native score and its rank
// (1-based) in that mode's list.
type ModeScore struct {
	Score float64 `json:"score"`
	Rank  int     `json:"rank"`
}

// Fused is one id after fusion.
type Fused struct {
	ID       string
	Score    float64
	Keyword  *ModeScore
	Semantic *ModeScore
}

// Fuse merges ranked lists by reciprocal rank fusion: each id scores
// sum over lists of weight/(RRFK+rank). Ties are broken by the better single
// rank, then by id, so the order is deterministic. A weight of 0 leaves that
// list out of the score but keeps its per-mode rank.
func Fuse(keyword, semantic []Hit, wKeyword, wSemantic float64) []Fused {
	byID := make(map[string]*Fused, len(keyword)+len(semantic))
	get := func(id string) *Fused {
		f := byID[id]
		if f == nil {
			f = &Fused{ID: id}
			byID[id] = f
		}
		return f
	}
	for i, h := range keyword {
		f := get(h.ID)
		if f.Keyword != nil {
			continue // a list repeats an id: keep its best rank
		}
		f.Keyword = &ModeScore{Score: h.Score, Rank: i + 1}
		f.Score += wKeyword / float64(RRFK+i+1)
	}
	for i, h := range semantic {
		f := get(h.ID)
		if f.Semantic != nil {
			continue
		}
		f.Semantic = &ModeScore{Score: h.Score, Rank: i + 1}
		f.Score += wSemantic / float64(RRFK+i+1)
	}
	out := make([]Fused, 0, len(byID))
	for _, f := range byID {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		bi, bj := bestRank(out[i]), bestRank(out[j])
		if bi != bj {
			return bi < bj
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func bestRank(f Fused) int {
	r := 1 << 30
	if f.Keyword != nil {
		r = f.Keyword.Rank
	}
	if f.Semantic != nil && f.Semantic.Rank < r {
		r = f.Semantic.Rank
	}
	return r
}
