package bolt

import (
	"math"
	"math/rand/v2"
	"testing"
)

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
		qx, qv := make([]int16, d), make([]int8, d)
		xq, vq := quantizeQuery(x, qx), quantize(v, qv)
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

// TestRotationIsOrthogonal checks that the rotation keeps norms and inner
// products (so the first pass bounds the true scores) at every size the
// index may see, powers of two and not.
func TestRotationIsOrthogonal(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, d := range []int{1, 2, 3, 5, 8, 100, 256, 384, 768, 1024, 1536} {
		x, v := make([]float32, d), make([]float32, d)
		for i := range x {
			x[i], v[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
		}
		rx, rv := make([]float32, d), make([]float32, d)
		rotate(x, rx)
		rotate(v, rv)
		var dot, rdot, nx, rnx, nv float64
		for i := range x {
			dot += float64(x[i]) * float64(v[i])
			rdot += float64(rx[i]) * float64(rv[i])
			nx += float64(x[i]) * float64(x[i])
			rnx += float64(rx[i]) * float64(rx[i])
			nv += float64(v[i]) * float64(v[i])
		}
		if math.Abs(dot-rdot) > 1e-6*math.Sqrt(nx*nv) || math.Abs(nx-rnx) > 1e-6*nx {
			t.Errorf("d=%d: inner product %.6f → %.6f, squared norm %.6f → %.6f", d, dot, rdot, nx, rnx)
		}
	}
}

// TestRotationShrinksResidual: on a vector whose energy sits in a few
// outlier dimensions, as sentence encoders' do, the rotated int8 form has a
// much smaller rounding residual than the plain one.
func TestRotationShrinksResidual(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	const d = 384
	v := make([]float32, d)
	var n float64
	for i := range v {
		v[i] = float32(0.03 * rng.NormFloat64())
	}
	v[99], v[223], v[319] = 0.42, -0.31, 0.30
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	plain := func(v []float32) float64 { // int8 without the rotation
		var m float64
		for _, x := range v {
			m = math.Max(m, math.Abs(float64(x)))
		}
		var r2 float64
		for _, x := range v {
			d := float64(x) - math.Round(float64(x)/(m/127))*(m/127)
			r2 += d * d
		}
		return math.Sqrt(r2)
	}
	q := quantize(v, make([]int8, d))
	t.Logf("residual %.5f with the rotation, %.5f without", q.resid, plain(v))
	if before := plain(v); float64(q.resid) > before/2 {
		t.Fatalf("residual %.5f with the rotation, %.5f without", q.resid, before)
	}
}
