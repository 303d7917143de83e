//go:build !amd64 && !arm64

package vecdot

// Int16Int8 is the inner product of a query's int16 form and a vector's
// int8 form of equal length.
func Int16Int8(q []int16, v []int8) int32 { return int16Int8Go(q, v[:len(q)]) }

// Float32 is the inner product of two float32 vectors of equal length.
func Float32(a, b []float32) float32 { return float32Go(a, b[:len(a)]) }
