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

// Int16Int8Rows sets out[i] to the inner product of q and row ords[i] of
// base, a row-major matrix of len(q) columns, one row at a time in NEON.
func Int16Int8Rows(q []int16, base []int8, ords []uint32, out []int32) {
	int16Int8RowsGo(q, base, ords, out)
}

// Widen sets dst[i] to int16(src[i]), exactly, for every i of src. dst is
// at least as long as src.
func Widen(dst []int16, src []int8) { widenGo(dst, src) }

//go:noescape
func prefetch(p *byte)

// Prefetch asks the CPU to bring the cache line of p closer, without
// waiting for it: a graph node's neighbour list read soon after.
func Prefetch(p *byte) { prefetch(p) }
