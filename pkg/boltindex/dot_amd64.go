package boltindex

import "golang.org/x/sys/cpu"

//go:noescape
func dotInt8AVX2(a, b *int8, n int) int32

var hasAVX2 = cpu.X86.HasAVX2

// dotInt8 is the inner product of two int8 vectors of equal length, in
// AVX2 where the CPU has it.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	n := len(a) &^ 31
	var s int32
	if hasAVX2 && n > 0 {
		s = dotInt8AVX2(&a[0], &b[0], n)
	} else {
		n = 0
	}
	return s + dotInt8Go(a[n:], b[n:])
}
