package boltindex

import "math"

// dotInt8Go is the portable inner product of two int8 vectors.
func dotInt8Go(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// quant describes one vector's int8 form v̂ = scale·q: the scale, the norm
// of v̂ and the norm of the rounding residual v − v̂. With them the exact
// inner product x·v lies within bound of x̂·v̂ (Cauchy–Schwarz on
// x·v = x̂·v̂ + x̂·r_v + r_x·v̂ + r_x·r_v).
type quant struct {
	scale, norm, resid float32
}

// quantize writes v's int8 form into q (len(v) bytes) and describes it.
// Each vector has its own scale, max|v_i|/127, so all 255 levels are used.
func quantize(v []float32, q []int8) quant {
	var m float32
	for _, x := range v {
		m = max(m, float32(math.Abs(float64(x))))
	}
	if m == 0 {
		clear(q)
		return quant{scale: 1}
	}
	scale := m / 127
	var n2, r2 float64
	for i, x := range v {
		k := int8(max(-127, min(127, math.Round(float64(x/scale)))))
		q[i] = k
		d := float64(k) * float64(scale)
		n2 += d * d
		r2 += (float64(x) - d) * (float64(x) - d)
	}
	return quant{scale: scale, norm: float32(math.Sqrt(n2)), resid: float32(math.Sqrt(r2))}
}

// boundSlack covers float32 rounding in the approximate and exact products.
const boundSlack = 1e-4

// approx returns x̂·v̂ and the bound on |x·v − x̂·v̂|.
func approx(qx []int8, x quant, qv []int8, v quant) (score, bound float32) {
	score = float32(dotInt8(qx, qv)) * x.scale * v.scale
	bound = x.norm*v.resid + x.resid*(v.norm+v.resid) + boundSlack
	return score, bound
}
