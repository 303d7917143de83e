package vecdot

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/agentmem/agentmem/internal/hugepage"
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

// TestInt16Int8Rows checks the scattered-rows kernel against one
// Int16Int8 per row: dimensions on and off its 32-element steps, every
// count of rows around its prefetch distance, rows repeated, and the last
// row of the matrix (where a prefetch past it must not be read).
func TestInt16Int8Rows(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dims := range []int{1, 31, 32, 64, 100, 384, 768} {
		const rows = 50
		base := make([]int8, rows*dims)
		for i := range base {
			base[i] = int8(rng.IntN(255) - 127)
		}
		q := make([]int16, dims)
		lv := int(MaxLevels(dims))
		for i := range q {
			q[i] = int16(rng.IntN(2*lv+1) - lv)
		}
		for n := 0; n <= 12; n++ {
			ords := make([]uint32, n)
			for i := range ords {
				ords[i] = uint32(rng.IntN(rows))
			}
			if n > 0 {
				ords[n-1] = rows - 1
			}
			if n > 2 {
				ords[1] = ords[0]
			}
			out := make([]int32, n)
			Int16Int8Rows(q, base, ords, out)
			for i, o := range ords {
				if want := Int16Int8(q, base[int(o)*dims:(int(o)+1)*dims]); out[i] != want {
					t.Fatalf("dims %d, %d rows: row %d (ord %d) = %d, want %d", dims, n, i, o, out[i], want)
				}
			}
		}
	}
}

// TestInt16Int8RowsOutOfRange checks that a row past the matrix panics
// rather than reading beyond it.
func TestInt16Int8RowsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a row past the matrix did not panic")
		}
	}()
	Int16Int8Rows(make([]int16, 32), make([]int8, 64), []uint32{0, 2}, make([]int32, 2))
}

// BenchmarkInt16Int8Rows scores 32 scattered rows of a matrix larger than
// the CPU's caches (a graph node's neighbours at a million vectors), in one
// call against one Int16Int8 call per row.
func BenchmarkInt16Int8Rows(b *testing.B) {
	const dims, rows, n = 384, 1 << 20, 32
	rng := rand.New(rand.NewPCG(13, 14))
	base := make([]int8, rows*dims)
	for i := range base {
		base[i] = int8(rng.IntN(255) - 127)
	}
	q := make([]int16, dims)
	for i := range q {
		q[i] = int16(rng.IntN(2001) - 1000)
	}
	sets := make([][]uint32, 4096)
	for i := range sets {
		sets[i] = make([]uint32, n)
		for j := range sets[i] {
			sets[i][j] = uint32(rng.IntN(rows))
		}
	}
	out := make([]int32, n)
	b.Run("rows", func(b *testing.B) {
		i := 0
		for b.Loop() {
			Int16Int8Rows(q, base, sets[i%len(sets)], out)
			i++
		}
	})
	b.Run("loop", func(b *testing.B) {
		i := 0
		for b.Loop() {
			for j, o := range sets[i%len(sets)] {
				out[j] = Int16Int8(q, base[int(o)*dims:(int(o)+1)*dims])
			}
			i++
		}
	})
	// The same rows once the matrix is on huge pages, as the graph's is
	// (pkg/index/bolt, adviseHuge).
	if _, err := hugepage.Advise(base); err != nil {
		b.Logf("no huge pages: %v", err)
		return
	}
	b.Run("rows on huge pages", func(b *testing.B) {
		i := 0
		for b.Loop() {
			Int16Int8Rows(q, base, sets[i%len(sets)], out)
			i++
		}
	})
}

// TestWiden checks the sign extension on every length around its
// 16-element steps, over the whole int8 range, and that it writes nothing
// past the source's length.
func TestWiden(t *testing.T) {
	for n := 0; n <= 300; n++ {
		src := make([]int8, n)
		for i := range src {
			src[i] = int8(i*37 + n) // wraps through every value
		}
		dst := make([]int16, n+1)
		dst[n] = 12345
		Widen(dst, src)
		for i, v := range src {
			if dst[i] != int16(v) {
				t.Fatalf("length %d: dst[%d] = %d, want %d", n, i, dst[i], v)
			}
		}
		if dst[n] != 12345 {
			t.Fatalf("length %d: wrote past the source", n)
		}
	}
}
