package memory

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// ids is the state that keeps the ids of one millisecond in the order
// they were made.
var ids struct {
	mu   sync.Mutex
	last [16]byte // the last id made
	ms   int64    // its millisecond
}

// NewID returns a new memory id: 32 hex characters, 48 bits of milliseconds
// then 80 random bits, so ids sort by creation time and never collide in
// practice. Within one millisecond of the process, each id is the one
// before plus one (as ULID's monotonic ids), so they sort in the order
// they were made too: a batch of messages created at once keeps its
// order wherever ids break ties (equal scores of a search, pages by id),
// and a benchmark's ties no longer depend on random bits.
func NewID(now time.Time) string {
	ms := now.UnixMilli()
	ids.mu.Lock()
	defer ids.mu.Unlock()
	b := ids.last
	if ms == ids.ms && increment(b[6:]) {
		ids.last = b
		return hex.EncodeToString(b[:])
	}
	binary.BigEndian.PutUint64(b[:8], uint64(ms)<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err) // crypto/rand never fails on supported platforms
	}
	ids.last, ids.ms = b, ms
	return hex.EncodeToString(b[:])
}

// increment adds one to the big-endian number b, and reports false when
// it overflows (b is then all zeros).
func increment(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		b[i]++
		if b[i] != 0 {
			return true
		}
	}
	return false
}
