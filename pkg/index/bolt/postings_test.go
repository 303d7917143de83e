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
				var n bm25
				n.reset(avgdl, uint32(tc.maxTF+tc.maxLen))
				var want float32
				for i := range tfs {
					tf := float32(tfs[i])
					want = max(want, tf/(tf+n.norm(lens[i])))
				}
				if got := p.bound(&n); got < want || (tc.exact && got > want*(1+1e-6)) {
					t.Fatalf("avgdl %v: bound %v, greatest factor %v", avgdl, got, want)
				}
			}
		})
	}
}

// TestTFLen: an entry gives back its frequency (up to maxCountedTF), and its term
// factor is BM25's for the memory's own length, whether the length is
// packed in the entry or read from the org's array.
func TestTFLen(t *testing.T) {
	tests := []struct {
		name   string
		tf     uint16
		length uint32
		packed bool
		wantTF uint16
	}{
		{"shortest", 1, 1, true, 1},
		{"empty memory", 1, 0, true, 1},
		{"frequency at the packed bound", tfLenMaxTF, 100, true, tfLenMaxTF},
		{"frequency past it", tfLenMaxTF + 1, 100, false, tfLenMaxTF + 1},
		{"length at the packed bound", 3, tfLenMaxLen, true, 3},
		{"length past it", 3, tfLenMaxLen + 1, false, 3},
		{"both past", 40, 70_000, false, 40},
		{"frequency past maxCountedTF", 65_535, 200_000, false, maxCountedTF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := packTFLen(tc.tf, tc.length)
			if got := e&tfLenWide == 0; got != tc.packed {
				t.Fatalf("packed = %v, want %v", got, tc.packed)
			}
			if got := e.tf(); got != tc.wantTF {
				t.Fatalf("tf = %d, want %d", got, tc.wantTF)
			}
			// The org's array holds the length at ordinal 1; a packed entry
			// must not need it, so ordinal 0 holds a wrong one.
			lengths := []uint32{tc.length + 1000, tc.length}
			d := uint32(1)
			if tc.packed {
				d = 0
			}
			for _, avgdl := range []float64{3, 40, 900} {
				var n bm25
				n.reset(avgdl, tc.length)
				tf := float32(tc.wantTF)
				want := tf / (tf + float32(k1*(1-b)+k1*b/avgdl*float64(tc.length)))
				if got := n.factor(e, lengths, d); got != want {
					t.Fatalf("avgdl %v: factor %v, want %v", avgdl, got, want)
				}
			}
		})
	}
}
