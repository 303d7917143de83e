package bolt

import (
	bbolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// release takes the bbolt file's pages out of the process's resident set
// (madvise MADV_DONTNEED over its whole map) once a transaction has read
// through the map: the entries of a load, the B-tree pages of a write, and
// with ReleasePages the float32 vectors of the re-score. The map is shared and read-only, so
// the pages stay in the page cache and the next read maps them again (a
// minor fault); the kernel maps a whole folio (up to 64 KB and more) around
// each page read, so without it a few hundred searches left most of the
// file resident (1.8 KB per memory at 100,000, besides the 2.8 KB of the
// process's own memory). tx must be open: a read transaction holds the map
// in place (bbolt remaps only when none is open).
func release(tx *bbolt.Tx) {
	info := tx.DB().Info()
	size := uintptr(tx.Size())
	if size == 0 {
		return
	}
	// The call fails only on a range outside the map, which the
	// transaction rules out; a failure leaves the pages resident, nothing
	// worse.
	unix.Syscall(unix.SYS_MADVISE, info.Data, size, unix.MADV_DONTNEED)
}
