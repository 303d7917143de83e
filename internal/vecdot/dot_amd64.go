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
