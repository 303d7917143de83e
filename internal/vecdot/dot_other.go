//go:build !amd64 && !arm64

package vecdot

// Int16Int8 is the inner product of a query's int16 form and a vector's
// int8 form of equal length.
func Int16Int8(q []int16, v []int8) int32 { return int16Int8Go(q, v[:len(q)]) }

// Float32 is the inner product of two float32 vectors of equal length.
func Float32(a, b []float32) float32 { return float32Go(a, b[:len(a)]) }

// Int16Int8Rows sets out[i] to the inner product of q and row ords[i] of
// base, a row-major matrix of len(q) columns.
func Int16Int8Rows(q []int16, base []int8, ords []uint32, out []int32) {
	int16Int8RowsGo(q, base, ords, out)
}

// Widen sets dst[i] to int16(src[i]), exactly, for every i of src. dst is
// at least as long as src.
func Widen(dst []int16, src []int8) { widenGo(dst, src) }

// Prefetch does nothing on this architecture.
func Prefetch(*byte) {}
