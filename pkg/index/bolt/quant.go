package bolt

import (
	"github.com/agentmem/agentmem/internal/vecdot"
	"math"
	"math/rand/v2"
	"sync"
)

// quant describes one vector's int8 form v̂ = scale·q: the scale, the norm
// of v̂ and the norm of the rounding residual v − v̂. With them the exact
// inner product x·v lies within bound of x̂·v̂ (Cauchy–Schwarz on
// x·v = x̂·v̂ + x̂·r_v + r_x·v̂ + r_x·r_v).
type quant struct {
	scale, norm, resid float32
}

// Both sides of approx are quantized after one fixed rotation (an
// orthogonal transform, so inner products are unchanged). Sentence
// encoders put a few outlier dimensions in every vector (bge-small: about
// 0.4 where the median component is 0.03); a per-vector int8 scale set by
// the outlier rounds every other component coarsely. The rotation spreads
// each vector's energy over all dimensions, which shrinks the largest
// component, the scale and with them the rounding residual that bounds the
// first pass (about threefold on bge-small vectors). It is a randomized
// Hadamard transform: random signs then a Walsh–Hadamard transform on a
// block of p dimensions, p the largest power of two ≤ d, applied at the
// start and, when p < d, again at the end of the vector, so the two
// overlapping blocks mix every dimension. It costs O(d log d) per vector.

// rotation holds the random signs of dims: two blocks of dims each.
type rotation struct {
	block int
	signs []float32
}

var rotations sync.Map // dims → *rotation

func rotationFor(dims int) *rotation {
	if r, ok := rotations.Load(dims); ok {
		return r.(*rotation)
	}
	p := 1
	for p*2 <= dims {
		p *= 2
	}
	rng := rand.New(rand.NewPCG(0x5eed, uint64(dims))) // fixed: index and queries agree across restarts
	r := &rotation{block: p, signs: make([]float32, 2*dims)}
	for i := range r.signs {
		r.signs[i] = float32(1 - 2*rng.IntN(2))
	}
	got, _ := rotations.LoadOrStore(dims, r)
	return got.(*rotation)
}

// rotate writes the rotation of v into out (len(v)).
func rotate(v, out []float32) {
	d := len(v)
	copy(out, v)
	if d < 2 {
		return
	}
	r := rotationFor(d)
	p := r.block
	norm := float32(1 / math.Sqrt(float64(p)))
	starts := []int{0}
	if p < d {
		starts = append(starts, d-p)
	}
	for b, at := range starts {
		x := out[at : at+p]
		signs := r.signs[b*d+at : b*d+at+p]
		for i := range x {
			x[i] *= signs[i]
		}
		for h := 1; h < p; h *= 2 { // in-place fast Walsh–Hadamard transform
			for i := 0; i < p; i += 2 * h {
				for j := i; j < i+h; j++ {
					a, c := x[j], x[j+h]
					x[j], x[j+h] = a+c, a-c
				}
			}
		}
		for i := range x {
			x[i] *= norm
		}
	}
}

var scratch = sync.Pool{New: func() any { return new([]float32) }}

// rotated returns the rotation of v in a pooled buffer; release it with
// scratch.Put.
func rotated(v []float32) *[]float32 {
	buf := scratch.Get().(*[]float32)
	if cap(*buf) < len(v) {
		*buf = make([]float32, len(v))
	}
	*buf = (*buf)[:len(v)]
	rotate(v, *buf)
	return buf
}

// quantize writes the int8 form of v's rotation into q (len(v) bytes) and
// describes it. Each vector has its own scale, max|v_i|/127, so all 255
// levels are used.
func quantize(v []float32, q []int8) quant { return quantizeTo(v, q, 127) }

// queryLevels is the largest magnitude of a query's int16 form for dims
// dimensions: 32767, or less where the products could overflow int32
// (dims · levels · 127 < 2³¹, which bounds every partial sum too).
func queryLevels(dims int) float64 { return vecdot.MaxLevels(dims) }

// quantizeQuery writes the int16 form of the query's rotation into q
// (len(v) values) and describes it. At 2¹⁵ levels instead of 2⁸ its
// rounding residual is about 250 times smaller than a stored vector's, so
// the bound of approx is almost entirely the stored vector's own residual.
func quantizeQuery(v []float32, q []int16) quant { return quantizeTo(v, q, queryLevels(len(v))) }

// quantizeTo rounds v's rotation to integers of magnitude ≤ levels, scaled
// by max|v_i|/levels, and measures the norm and the rounding residual.
func quantizeTo[T int8 | int16](v []float32, q []T, levels float64) quant {
	buf := rotated(v)
	defer scratch.Put(buf)
	v = *buf
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(q)
		return quant{scale: 1}
	}
	scale := m / float32(levels)
	var n2, r2 float64
	for i, x := range v {
		k := max(-levels, min(levels, math.Round(float64(x/scale))))
		q[i] = T(k)
		d := k * float64(scale)
		n2 += d * d
		r2 += (float64(x) - d) * (float64(x) - d)
	}
	return quant{scale: scale, norm: float32(math.Sqrt(n2)), resid: float32(math.Sqrt(r2))}
}

// boundSlack covers float32 rounding in the approximate and exact products.
const boundSlack = 1e-4

// approx returns x̂·v̂ and the bound on |x·v − x̂·v̂| for a query x in
// int16 form and a stored vector v in int8 form.
func approx(qx []int16, x quant, qv []int8, v quant) (score, bound float32) {
	score = float32(vecdot.Int16Int8(qx, qv)) * x.scale * v.scale
	bound = x.norm*v.resid + x.resid*(v.norm+v.resid) + boundSlack
	return score, bound
}
