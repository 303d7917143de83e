package hugepage

import (
	"testing"
	"unsafe"
)

// TestTrack: an array is advised once, again when it has moved, and not
// at all below the size asked for.
func TestTrack(t *testing.T) {
	var tr Tracker
	small := make([]byte, 1<<20)
	a := make([]uint32, 1<<20)
	grown := append(a[:len(a):len(a)], 1) // a new backing array
	steps := []struct {
		name      string
		s         any
		least     int
		wantTried bool
	}{
		{"below the size asked for", small, 4 << 20, false},
		{"a large array", a, 1 << 20, true},
		{"the same array again", a, 1 << 20, false},
		{"the array moved", grown, 1 << 20, true},
		{"the moved array again", grown, 1 << 20, false},
	}
	for _, st := range steps {
		var tried bool
		var err error
		switch s := st.s.(type) {
		case []byte:
			_, tried, err = Track(&tr, s, st.least)
		case []uint32:
			_, tried, err = Track(&tr, s, st.least)
		}
		if err != nil && !Transient(err) {
			t.Fatalf("%s: %v", st.name, err)
		}
		if tried != st.wantTried {
			t.Fatalf("%s: tried %v, want %v", st.name, tried, st.wantTried)
		}
		if Transient(err) {
			t.Skipf("%s: the kernel found no free huge page: %v", st.name, err)
		}
	}
	if tr.Advised() != uintptr(unsafe.Pointer(unsafe.SliceData(grown))) {
		t.Fatal("the tracker does not hold the array advised last")
	}
}
