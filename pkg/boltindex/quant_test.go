package boltindex

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDotInt8 checks the assembly (where it runs) against the portable
// loop on every length around the 32-byte steps and at the extremes.
func TestDotInt8(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n <= 400; n++ {
		a, b := make([]int8, n), make([]int8, n)
		for i := range a {
			a[i], b[i] = int8(rng.IntN(255)-127), int8(rng.IntN(255)-127)
		}
		if n%7 == 0 { // the extremes: -127·-127 and 127·-127 everywhere
			for i := range a {
				a[i], b[i] = -127, int8(127*(1-2*(i%2)))
			}
		}
		if got, want := dotInt8(a, b), dotInt8Go(a, b); got != want {
			t.Fatalf("length %d: %d, want %d", n, got, want)
		}
	}
}

// TestApproxBound checks that the bound holds: for random and adversarial
// vectors the exact product lies within it of the int8 estimate.
func TestApproxBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	unit := func(d int, spiky bool) []float32 {
		v := make([]float32, d)
		var n float64
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			if spiky && i%50 == 0 {
				v[i] *= 40
			}
			n += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		return v
	}
	for trial := 0; trial < 2000; trial++ {
		d := []int{8, 64, 384, 1024}[trial%4]
		x, v := unit(d, trial%3 == 0), unit(d, trial%5 == 0)
		qx, qv := make([]int8, d), make([]int8, d)
		xq, vq := quantize(x, qx), quantize(v, qv)
		var exact float64
		for i := range x {
			exact += float64(x[i]) * float64(v[i])
		}
		a, bound := approx(qx, xq, qv, vq)
		if math.Abs(exact-float64(a)) > float64(bound) {
			t.Fatalf("d=%d: exact %.6f, approx %.6f, bound %.6f", d, exact, a, bound)
		}
		if bound > 0.1 {
			t.Fatalf("d=%d: bound %.4f is too loose to prune", d, bound)
		}
	}
}

// TestVectorOf walks encoded entries to their vector bytes.
func TestVectorOf(t *testing.T) {
	cases := []struct {
		name string
		d    doc
	}{
		{"with a vector", doc{terms: []string{"apple", "pie"}, tfs: []uint16{2, 1}, length: 3, vec: []float32{0.5, -0.25, 1}}},
		{"without a vector", doc{terms: []string{"apple"}, tfs: []uint16{1}, length: 1}},
		{"no terms", doc{vec: []float32{1, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.d.attrs.OrgID = "o"
			got := vectorOf(encodeDoc(&c.d))
			if len(got) != 4*len(c.d.vec) {
				t.Fatalf("%d vector bytes, want %d", len(got), 4*len(c.d.vec))
			}
			for i, x := range c.d.vec {
				if y := math.Float32frombits(uint32(got[4*i]) | uint32(got[4*i+1])<<8 | uint32(got[4*i+2])<<16 | uint32(got[4*i+3])<<24); y != x {
					t.Fatalf("component %d: %v, want %v", i, y, x)
				}
			}
		})
	}
	if vectorOf([]byte{0xff}) != nil || vectorOf(nil) != nil {
		t.Fatal("a malformed entry yields bytes")
	}
}
