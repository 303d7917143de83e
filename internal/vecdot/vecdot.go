// Package vecdot holds the quantized inner product that vector search
// runs in its inner loop: an int16 query against int8 stored vectors, in
// AVX2 where the CPU has it (16 products per instruction), NEON on arm64,
// else a portable loop. The embedded index (index/bolt) and the
// related-terms index (knowledge) score with it.
//
// A graph walk scores a node's neighbours, rows scattered over a matrix
// far larger than the caches, so each row is a cache miss: Int16Int8Rows
// scores them in one call that prefetches the rows ahead of the one it
// scores, Prefetch brings a line the walk will read next, and Widen makes
// a stored vector a query.
package vecdot

// MaxLevels is the largest magnitude of a query component for dims
// dimensions that keeps the int32 sum of products with int8 components
// from overflowing (and at most the int16 range).
func MaxLevels(dims int) float64 {
	return min(32767, float64(int64(1<<31-1)/(127*int64(max(dims, 1)))))
}

// int16Int8Go is the portable inner product of a query's int16 form and a
// vector's int8 form.
func int16Int8Go(q []int16, v []int8) int32 {
	v = v[:len(q)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += int32(q[i]) * int32(v[i])
		s1 += int32(q[i+1]) * int32(v[i+1])
		s2 += int32(q[i+2]) * int32(v[i+2])
		s3 += int32(q[i+3]) * int32(v[i+3])
	}
	for ; i < len(q); i++ {
		s0 += int32(q[i]) * int32(v[i])
	}
	return s0 + s1 + s2 + s3
}

// float32Go is the portable inner product of two float32 vectors, four
// accumulators wide.
func float32Go(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// int16Int8RowsGo is Int16Int8Rows one row at a time.
func int16Int8RowsGo(q []int16, base []int8, ords []uint32, out []int32) {
	dims := len(q)
	out = out[:len(ords)]
	for i, o := range ords {
		at := int(o) * dims
		out[i] = Int16Int8(q, base[at:at+dims])
	}
}

// checkRows panics unless every row of ords lies within base.
func checkRows(dims int, base []int8, ords []uint32) {
	top := uint32(0)
	for _, o := range ords {
		top = max(top, o)
	}
	if (int(top)+1)*dims > len(base) {
		panic("vecdot: row out of range")
	}
}

// widenGo is Widen one element at a time.
func widenGo(dst []int16, src []int8) {
	dst = dst[:len(src)]
	for i, v := range src {
		dst[i] = int16(v)
	}
}
