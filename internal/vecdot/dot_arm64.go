package vecdot

//go:noescape
func dotQueryNEON(q *int16, v *int8, n int, out *[16]int32)

// Int16Int8 is the inner product of a query's int16 form and a vector's
// int8 form of equal length, in NEON (Advanced SIMD, part of every arm64
// CPU): 16 products per step.
func Int16Int8(q []int16, v []int8) int32 {
	v = v[:len(q)]
	n := len(q) &^ 15
	var s int32
	if n > 0 {
		var part [16]int32
		dotQueryNEON(&q[0], &v[0], n, &part)
		for _, p := range part {
			s += p
		}
	}
	return s + int16Int8Go(q[n:], v[n:])
}

//go:noescape
func dotF32NEON(a, b *float32, n int, out *[16]float32)

// Float32 is the inner product of two float32 vectors of equal length, in
// NEON: 16 multiply-adds per step in four accumulators.
func Float32(a, b []float32) float32 {
	b = b[:len(a)]
	n := len(a) &^ 15
	var s float32
	if n > 0 {
		var part [16]float32
		dotF32NEON(&a[0], &b[0], n, &part)
		for _, p := range part {
			s += p
		}
	}
	return s + float32Go(a[n:], b[n:])
}
