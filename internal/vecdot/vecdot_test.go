package vecdot

import (
	"math/rand/v2"
	"testing"
)

// TestDotQuery checks the assembly (where it runs) against the portable
// loop and a 64-bit sum on every length around the 32-element steps, and at
// the extremes the query's levels allow, up to 8,192 dimensions (where an
// int32 sum would overflow without the level cap).
func TestDotQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	lengths := []int{1024, 1536, 3072, 8192}
	for n := 0; n <= 400; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		lv := int(MaxLevels(n))
		a, b := make([]int16, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int16(rng.IntN(2*lv+1)-lv), int8(rng.IntN(255)-127)
		}
		extreme := n%7 == 0 || n > 400
		if extreme { // every product at its largest, all of one sign
			for i := range a {
				a[i], b[i] = int16(-lv), -127
			}
		}
		var want int64
		for i := range a {
			want += int64(a[i]) * int64(b[i])
		}
		if got := Int16Int8(a, b); int64(got) != want || int16Int8Go(a, b) != got {
			t.Fatalf("length %d: asm %d, go %d, want %d", n, got, int16Int8Go(a, b), want)
		}
	}
}
