package memory

import "sort"

// RRFK is the reciprocal rank fusion constant of Cormack et al. (2009),
// Fuse's: what other systems use by default (OpenSearch, LanceDB, bleve),
// so that comparisons with them fuse alike. The retrieval pipeline fuses
// its own lists with FuseK at retrieval.RRFK.
const RRFK = 60

// ModeScore is one ranked list's view of a result: its native score (BM25,
// cosine, knowledge match score, rerank relevance) and its rank (1-based)
// in that list.
type ModeScore struct {
	Score float64 `json:"score"`
	Rank  int     `json:"rank"`
}

// RankedList is one named ranked list of ids, best first, with its weight
// in the fusion.
type RankedList struct {
	Name   string
	Hits   []Hit
	Weight float64
}

// Fused is one id after fusion, with its place in every list it is in.
type Fused struct {
	ID    string
	Score float64
	Lists map[string]*ModeScore
	best  int // best rank in any list
	first int // position of the first list (in fusion order) it is in
}

// Fuse merges ranked lists by weighted reciprocal rank fusion, as bleve's
// fusion package does: each id scores the sum over lists of
// weight/(RRFK+rank). A weight of 0 leaves a list out of the score but keeps
// its ranks in Lists.
//
// Ties are broken by principle, never by the id alone: first by the better
// single-list rank (an id first in one list beats one third in two), then by
// the number of lists that found it, then by the order of the lists (the
// caller lists them in order of trust), and only last by id so that the
// order is fully deterministic.
func Fuse(lists ...RankedList) []Fused { return FuseK(RRFK, lists...) }

// FuseK is Fuse with the constant k in place of RRFK: each id scores the
// sum over lists of weight/(k+rank). A smaller k weighs a list's first
// ranks more against its later ones. k must be positive.
func FuseK(k int, lists ...RankedList) []Fused { return FuseScores(k, 0, lists...) }

// FuseScores is FuseK that also keeps what the lists' scores say: a hit of
// a list counts weight × ((1−share)·(k+1)/(k+rank) + share·norm)/(k+1),
// where norm is its score min-max normalized over the list's hits (1 for
// a list whose hits all score alike). At share 0 it is FuseK; at rank 1 a
// hit counts weight/(k+1) whatever the share, so the scale of the fused
// scores does not change with it.
//
// Rank fusion throws away how far apart a list's hits are: a keyword hit
// that matches every word of the question and the one after it that
// matches a single common word are one rank apart. Bruch, Gai and Ingber
// ("An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS 2023)
// found a convex combination of normalized scores better than RRF in and
// out of domain; min-max normalization makes it indifferent to each
// list's scale (BM25, cosine, OpenSearch's (1+cosine)/2, a list's own
// fused scores). share must be in [0, 1].
func FuseScores(k int, share float64, lists ...RankedList) []Fused {
	n := 0
	for _, l := range lists {
		n += len(l.Hits)
	}
	byID := make(map[string]*Fused, n)
	for li, l := range lists {
		lo, hi := scoreRange(l.Hits)
		for i, h := range l.Hits {
			f := byID[h.ID]
			if f == nil {
				f = &Fused{ID: h.ID, Lists: make(map[string]*ModeScore, len(lists)), best: 1 << 30, first: li}
				byID[h.ID] = f
			}
			if f.Lists[l.Name] != nil {
				continue // a list repeats an id: keep its best rank
			}
			rank := i + 1
			f.Lists[l.Name] = &ModeScore{Score: h.Score, Rank: rank}
			if share == 0 {
				f.Score += l.Weight / float64(k+rank)
			} else {
				norm := 1.0
				if hi > lo {
					norm = (h.Score - lo) / (hi - lo)
				}
				f.Score += l.Weight * ((1-share)*float64(k+1)/float64(k+rank) + share*norm) / float64(k+1)
			}
			f.best = min(f.best, rank)
		}
	}
	out := make([]Fused, 0, len(byID))
	for _, f := range byID {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		switch {
		case a.Score != b.Score:
			return a.Score > b.Score
		case a.best != b.best:
			return a.best < b.best
		case len(a.Lists) != len(b.Lists):
			return len(a.Lists) > len(b.Lists)
		case a.first != b.first:
			return a.first < b.first
		}
		return a.ID < b.ID
	})
	return out
}

// scoreRange is the lowest and highest score of hits (0, 0 for none).
func scoreRange(hits []Hit) (lo, hi float64) {
	for i, h := range hits {
		if i == 0 || h.Score < lo {
			lo = h.Score
		}
		if i == 0 || h.Score > hi {
			hi = h.Score
		}
	}
	return lo, hi
}
