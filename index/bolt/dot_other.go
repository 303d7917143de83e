//go:build !amd64

package bolt

// dotQuery is the inner product of a query's int16 form and a vector's
// int8 form of equal length.
func dotQuery(q []int16, v []int8) int32 { return dotQueryGo(q, v[:len(q)]) }
