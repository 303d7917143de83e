// Package hugepage puts large arrays that are read at random on huge
// pages (2 MiB on x86-64 and most arm64 kernels).
//
// A graph walk over a million vectors reads a few thousand rows scattered
// over hundreds of megabytes. On 4 KiB pages nearly every row is a miss of
// the CPU's address-translation cache as well as of its data caches; on
// huge pages the translation of the whole array fits. Go's heap does not
// ask for huge pages, and the kernels of common distributions give them only
// on request (transparent_hugepage "madvise"), so the index asks for the
// few arrays where it matters.
package hugepage

import (
	"sync/atomic"
	"time"
	"unsafe"
)

// hugeSize is the huge page size advised ranges are aligned to.
const hugeSize = 2 << 20

// Min is the size from which an array is worth advising: below it, the
// translation cache covers it on 4 KiB pages as well.
const Min = 32 << 20

// Advise asks the kernel to back s's backing array with huge pages (the
// whole 2 MiB pages inside it): the part in use (its length) now, the rest
// of its capacity when an append touches it. It returns how many bytes are
// on huge pages now. The contents are unchanged. It is advice: where the
// system has no huge pages, or refuses (err), the array works as before.
// Advise blocks while the kernel copies the pages in use (about 2 ms per
// MiB), so call it off any request path, on a slice the caller keeps
// alive.
func Advise[T any](s []T) (int, error) {
	if cap(s) == 0 {
		return 0, nil
	}
	var z T
	return adviseRange(unsafe.Pointer(unsafe.SliceData(s)), uintptr(len(s))*unsafe.Sizeof(z), uintptr(cap(s))*unsafe.Sizeof(z))
}

// adviseRange and now are the system's; tests replace them.
var (
	adviseRange = advise
	now         = time.Now
)

// Retry is how long Track waits, after the kernel could not collapse an
// array for want of free huge pages (Transient), before it tries again:
// a collapse of the index's arrays at a million memories takes about a
// second of a core, and on a host whose memory stays fragmented each
// call would otherwise pay it again for nothing.
const Retry = time.Minute

// Tracker remembers the backing array last advised for one array that may
// move (an append that grows it, a rebuild), so that each is advised once.
// Its zero value is ready; it is safe for concurrent use.
type Tracker struct {
	at      atomic.Uintptr
	retryAt atomic.Int64 // Unix nanoseconds before which Track tries nothing (Retry)
}

// Advised is the address of the backing array t advised last, 0 for none.
func (t *Tracker) Advised() uintptr { return t.at.Load() }

// Due reports whether Track would advise s now: its backing array holds
// at least least bytes, is not the one t advised last, and no collapse
// was refused for want of free huge pages within Retry.
func Due[T any](t *Tracker, s []T, least int) bool {
	var z T
	if cap(s) == 0 || uintptr(cap(s))*unsafe.Sizeof(z) < uintptr(least) {
		return false
	}
	return t.at.Load() != uintptr(unsafe.Pointer(unsafe.SliceData(s))) && now().UnixNano() >= t.retryAt.Load()
}

// Track advises s (Advise) when its backing array is at least least bytes
// (Min, unless a test asks for less) and not the one t advised last. tried
// is false when it did nothing. An array the kernel could not collapse for
// want of free huge pages (Transient) is tried again on the first call
// Retry after the failure (this array or the one that replaced it); one it
// refuses outright is not tried again.
func Track[T any](t *Tracker, s []T, least int) (advised int, tried bool, err error) {
	if !Due(t, s, least) {
		return 0, false, nil
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	if t.at.Swap(p) == p { // another call took it meanwhile
		return 0, false, nil
	}
	advised, err = Advise(s)
	if Transient(err) {
		t.retryAt.Store(now().Add(Retry).UnixNano())
		t.at.CompareAndSwap(p, 0) // a call after Retry tries again
	}
	return advised, true, err
}
