//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where the kernel has no transparent huge pages.
func advise(unsafe.Pointer, uintptr, uintptr) (int, error) { return 0, nil }

// Transient is false: advise never fails here.
func Transient(error) bool { return false }
