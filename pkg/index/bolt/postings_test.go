package bolt

import (
	"math/rand/v2"
	"testing"
)

// TestPostingsBound: a list's bound is never below its greatest BM25 term
// factor, whatever the average length, and is that factor exactly while
// the frequencies stay within the buckets (past them, the greatest
// frequency pairs with the shortest memory of the last bucket).
func TestPostingsBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct {
		name       string
		n, maxTF   int
		maxLen     int
		avgLengths []float64
		exact      bool
	}{
		{"one posting", 1, 3, 40, []float64{5, 50}, true},
		{"low frequencies", 200, 3, 60, []float64{3, 20, 200}, true},
		{"past the buckets", 500, 40, 400, []float64{10, 80, 1000}, false},
		{"past 65,535 tokens", 300, 3, 200_000, []float64{100, 70_000}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var p postings
			tfs := make([]uint16, tc.n)
			lens := make([]uint32, tc.n)
			for i := range tc.n {
				tfs[i] = uint16(1 + r.IntN(tc.maxTF))
				lens[i] = uint32(int(tfs[i]) + r.IntN(tc.maxLen))
				p.note(tfs[i], lens[i])
			}
			for _, avgdl := range tc.avgLengths {
				norm := func(l uint32) float32 { return float32(k1 * (1 - b + b*float64(l)/avgdl)) }
				var want float32
				for i := range tfs {
					tf := float32(tfs[i])
					want = max(want, tf/(tf+norm(lens[i])))
				}
				if got := p.bound(norm); got < want || (tc.exact && got > want*(1+1e-6)) {
					t.Fatalf("avgdl %v: bound %v, greatest factor %v", avgdl, got, want)
				}
			}
		})
	}
}
