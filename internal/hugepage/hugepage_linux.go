package hugepage

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// advise marks the whole huge pages inside [p, p+capacity) for huge pages
// (MADV_HUGEPAGE: a page touched later is faulted in huge) and collapses
// those inside [p, p+length), the part in use, into huge ones now
// (MADV_COLLAPSE, Linux 6.1 and later). The collapse stops at the length:
// this kernel refuses a range holding pages never touched (EINVAL), and
// the capacity an append left unused is to stay unpopulated.
func advise(p unsafe.Pointer, length, capacity uintptr) (int, error) {
	start := (uintptr(p) + hugeSize - 1) &^ (hugeSize - 1)
	end := (uintptr(p) + capacity) &^ (hugeSize - 1)
	if end <= start {
		return 0, nil
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	if err := unix.Madvise(b, unix.MADV_HUGEPAGE); err != nil {
		return 0, fmt.Errorf("hugepage: madvise(MADV_HUGEPAGE): %w", err)
	}
	used := min(end, (uintptr(p)+length)&^(hugeSize-1))
	if used <= start {
		return 0, nil
	}
	if err := unix.Madvise(b[:used-start], unix.MADV_COLLAPSE); err != nil {
		return 0, fmt.Errorf("hugepage: madvise(MADV_COLLAPSE): %w", err)
	}
	return int(used - start), nil
}

// Transient reports whether err is the kernel finding no free huge page
// at the moment (memory fragmented or short), which a later try may not
// meet.
func Transient(err error) bool {
	return errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.ENOMEM)
}
