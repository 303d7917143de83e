package query

import (
	"strconv"

	"github.com/agentmem/agentmem/pkg/memory"
)

// comparative words of a question and the comparison they ask for.
var (
	greater = set(`more greater higher larger bigger above over`)
	lesser  = set(`less lower smaller fewer below under`)
)

// comparisons finds the relational comparisons of a question and marks
// their tokens used:
//
//   - "older than 30", "over 30 years old", "at least 30 years old": age
//     gt, gt, gte 30 ("younger", "under", "at most": lt, lt, lte);
//   - "<word> higher than 5000", "<word> less than 20": that word's
//     facet, gt or lt.
//
// Each becomes a property leaf with its operator.
func (q *question) comparisons() []Node {
	var out []Node
	add := func(name string, op memory.CompareOp, n int, from, to int) {
		for i := from; i < to; i++ {
			q.used[i] = true
		}
		out = append(out, Node{Property: &PropertyLeaf{Name: name, Op: op, Value: strconv.Itoa(n)}})
	}
	num := func(i int) int {
		if q.word(i) && !q.used[i] {
			return q.toks[i].num
		}
		return -1
	}
	// yearsOld is the index after "N years old" or "N" at i, and whether
	// "years old" followed.
	yearsOld := func(i int) (int, bool) {
		if q.low(i+1) == "years" && q.low(i+2) == "old" {
			return i + 3, true
		}
		if q.low(i+1) == "old" {
			return i + 2, true
		}
		return i + 1, false
	}
	for i := 0; i < len(q.toks); i++ {
		w := q.low(i)
		if w == "" || q.used[i] {
			continue
		}
		switch {
		case (w == "older" || w == "younger") && q.low(i+1) == "than" && num(i+2) >= 0:
			op := memory.OpGt
			if w == "younger" {
				op = memory.OpLt
			}
			end, _ := yearsOld(i + 2)
			add("age", op, num(i+2), i, end)
		case (w == "over" || w == "above" || w == "under" || w == "below") && num(i+1) >= 0:
			if end, ok := yearsOld(i + 1); ok {
				op := memory.OpGt
				if lesser[w] {
					op = memory.OpLt
				}
				add("age", op, num(i+1), i, end)
			}
		case w == "at" && (q.low(i+1) == "least" || q.low(i+1) == "most") && num(i+2) >= 0:
			if end, ok := yearsOld(i + 2); ok {
				op := memory.OpGte
				if q.low(i+1) == "most" {
					op = memory.OpLte
				}
				add("age", op, num(i+2), i, end)
			}
		case (greater[w] || lesser[w]) && q.low(i+1) == "than" && num(i+2) >= 0:
			p := i - 1
			if p < 0 || !q.word(p) || q.used[p] || q.stop(q.low(p)) || q.toks[p].num >= 0 {
				continue
			}
			op := memory.OpGt
			if lesser[w] {
				op = memory.OpLt
			}
			add(q.low(p), op, num(i+2), p, i+3)
		}
	}
	return out
}
