package vecdot

import (
	"math"
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

// BenchmarkInt16Int8 compares the kernel of this architecture (AVX2,
// NEON) with the portable loop at the default model's 384 dimensions.
func BenchmarkInt16Int8(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 384
	q, v := make([]int16, n), make([]int8, n)
	for i := range q {
		q[i], v[i] = int16(rng.IntN(2001)-1000), int8(rng.IntN(255)-127)
	}
	var sink int32
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			sink += Int16Int8(q, v)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for b.Loop() {
			sink += int16Int8Go(q, v)
		}
	})
	_ = sink
}

// TestFloat32 checks the kernel (where there is one) against a float64
// sum on every length around its 16-element steps, within float32
// rounding of a sum in another order.
func TestFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	lengths := []int{384, 768, 1024, 1536, 3072}
	for n := 0; n <= 100; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a, b := make([]float32, n), make([]float32, n)
		var want, mag float64
		for i := range a {
			a[i], b[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			want += float64(a[i]) * float64(b[i])
			mag += math.Abs(float64(a[i]) * float64(b[i]))
		}
		tol := 1e-5*mag + 1e-6
		if got := Float32(a, b); math.Abs(float64(got)-want) > tol {
			t.Fatalf("length %d: kernel %v, want %v (±%v)", n, got, want, tol)
		}
		if got := float32Go(a, b); math.Abs(float64(got)-want) > tol {
			t.Fatalf("length %d: portable %v, want %v (±%v)", n, got, want, tol)
		}
	}
}

// BenchmarkFloat32 compares the kernel of this architecture with the
// portable loop at 384 dimensions.
func BenchmarkFloat32(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	const n = 384
	x, y := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], y[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	var sink float32
	b.Run("kernel", func(b *testing.B) {
		for b.Loop() {
			sink += Float32(x, y)
		}
	})
	b.Run("portable", func(b *testing.B) {
		for b.Loop() {
			sink += float32Go(x, y)
		}
	})
	_ = sink
}
