package vecdot

import "golang.org/x/sys/cpu"

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
