package memory

import (
	"bytes"
	"encoding/hex"
	"sort"
	"sync"
	"testing"
	"time"
)

// TestNewID: ids encode their millisecond, sort in the order they were
// made within one, and never repeat, even made at once.
func TestNewID(t *testing.T) {
	at := time.UnixMilli(1_700_000_000_123)
	prefix := func(id string) string { return id[:12] }
	first := NewID(at)
	if len(first) != 32 || prefix(first) != "018bcfe5687b" {
		t.Fatalf("id %q: want 32 hex characters starting with the millisecond 018bcfe5687b", first)
	}
	same := []string{first}
	for range 1000 {
		same = append(same, NewID(at))
	}
	if !sort.StringsAreSorted(same) {
		t.Fatal("ids of one millisecond are not in the order they were made")
	}
	for i := 1; i < len(same); i++ {
		if same[i] == same[i-1] || prefix(same[i]) != prefix(first) {
			t.Fatalf("id %d: %q after %q", i, same[i], same[i-1])
		}
	}
	if later := NewID(at.Add(time.Millisecond)); prefix(later) != "018bcfe5687c" || later <= same[len(same)-1] {
		t.Fatalf("the next millisecond's id %q", later)
	}
	if earlier := NewID(at.Add(-time.Second)); prefix(earlier) != "018bcfe56493" {
		t.Fatalf("an earlier time's id %q does not encode it", earlier)
	}

	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				id := NewID(at)
				mu.Lock()
				if seen[id] {
					t.Errorf("id %q made twice", id)
				}
				seen[id] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestIncrement(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"0000", "0001", true},
		{"00ff", "0100", true},
		{"12ffff", "130000", true},
		{"ffff", "0000", false},
	}
	for _, tc := range tests {
		b, _ := hex.DecodeString(tc.in)
		ok := increment(b)
		if want, _ := hex.DecodeString(tc.want); ok != tc.ok || !bytes.Equal(b, want) {
			t.Errorf("increment(%s) = %x, %v; want %s, %v", tc.in, b, ok, tc.want, tc.ok)
		}
	}
}
