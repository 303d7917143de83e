package vecdot

import (
	"github.com/viterin/vek/vek32"
	"golang.org/x/sys/cpu"
)

//go:noescape
func dotQueryAVX2(q *int16, v *int8, n int) int32

var hasAVX2 = cpu.X86.HasAVX2

// Int16Int8 is the inner product of a query's int16 form and a vector's
// int8 form of equal length, in AVX2 where the CPU has it.
func Int16Int8(q []int16, v []int8) int32 {
	v = v[:len(q)]
	n := len(q) &^ 31
	var s int32
	if hasAVX2 && n > 0 {
		s = dotQueryAVX2(&q[0], &v[0], n)
	} else {
		n = 0
	}
	return s + int16Int8Go(q[n:], v[n:])
}

// Float32 is the inner product of two float32 vectors of equal length:
// vek32's AVX2 kernel, measured faster here than a loop of our own.
func Float32(a, b []float32) float32 {
	if len(a) == 0 {
		return 0 // vek32 panics on empty vectors
	}
	return vek32.Dot(a, b[:len(a)])
}

//go:noescape
func dotRowsAVX2(q *int16, base *int8, dims int, ords *uint32, n int, out *int32)

// Int16Int8Rows sets out[i] to the inner product of q and row ords[i] of
// base, a row-major matrix of len(q) columns: the scores of a graph node's
// neighbours in one call. In AVX2 (when len(q) is a multiple of 32) it
// prefetches the rows ahead of the one it scores, which a loop of
// Int16Int8 calls cannot: the rows are scattered, and each is a cache miss.
// It panics when a row is outside base or out is shorter than ords.
func Int16Int8Rows(q []int16, base []int8, ords []uint32, out []int32) {
	dims := len(q)
	out = out[:len(ords)]
	if !hasAVX2 || dims == 0 || dims%32 != 0 || len(ords) == 0 {
		int16Int8RowsGo(q, base, ords, out)
		return
	}
	checkRows(dims, base, ords)
	dotRowsAVX2(&q[0], &base[0], dims, &ords[0], len(ords), &out[0])
}

//go:noescape
func widenAVX2(dst *int16, src *int8, n int)

// Widen sets dst[i] to int16(src[i]), exactly, for every i of src: a
// stored vector made a query (a graph node scored against others). dst is
// at least as long as src.
func Widen(dst []int16, src []int8) {
	dst = dst[:len(src)]
	n := len(src) &^ 15
	if hasAVX2 && n > 0 {
		widenAVX2(&dst[0], &src[0], n)
	} else {
		n = 0
	}
	widenGo(dst[n:], src[n:])
}

//go:noescape
func prefetch(p *byte)

// Prefetch asks the CPU to bring the cache line of p closer, without
// waiting for it: a graph node's neighbour list read soon after.
func Prefetch(p *byte) { prefetch(p) }
