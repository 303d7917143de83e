package hugepage

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise marks the aligned interior of [p, p+n) for huge pages
// (MADV_HUGEPAGE, so that pages touched later are huge) and collapses the
// pages already there into huge ones (MADV_COLLAPSE, Linux 6.1 and later;
// on older kernels only the first applies).
func advise(p unsafe.Pointer, n uintptr) (int, error) {
	start := (uintptr(p) + hugeSize - 1) &^ (hugeSize - 1)
	end := (uintptr(p) + n) &^ (hugeSize - 1)
	if end <= start {
		return 0, nil
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	if err := unix.Madvise(b, unix.MADV_HUGEPAGE); err != nil {
		return 0, fmt.Errorf("hugepage: madvise(MADV_HUGEPAGE): %w", err)
	}
	if err := unix.Madvise(b, unix.MADV_COLLAPSE); err != nil {
		return len(b), fmt.Errorf("hugepage: madvise(MADV_COLLAPSE): %w", err)
	}
	return len(b), nil
}

// Transient reports whether err is the kernel finding no free huge page
// at the moment (memory fragmented or short), which a later try may not
// meet.
func Transient(err error) bool {
	return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.ENOMEM)
}
