package hugepage

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestAdvise advises arrays of several sizes, touched
// before and after, and checks that the contents are unchanged, that the
// advised range is the whole 2 MiB pages inside each, and, where the
// kernel collapses pages, that /proc/self/smaps counts them as huge.
func TestAdvise(t *testing.T) {
	cases := []struct {
		name  string
		bytes int
	}{
		{"empty", 0},
		{"under one huge page", 1 << 20},
		{"eight huge pages and a bit", 16<<20 + 4096},
		{"forty", 80 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := make([]uint32, c.bytes/4)
			for i := range s {
				s[i] = uint32(i * 2654435761)
			}
			n, err := Advise(s)
			for try := 0; Transient(err) && try < 5; try++ {
				time.Sleep(100 * time.Millisecond) // no free huge page now: the kernel compacts meanwhile
				n, err = Advise(s)
			}
			if Transient(err) {
				t.Skipf("the kernel found no free huge page in five tries: %v", err)
			}
			if runtime.GOOS != "linux" {
				if n != 0 || err != nil {
					t.Fatalf("Advise = %d, %v off Linux; want 0, nil", n, err)
				}
				return
			}
			if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EPERM) {
				t.Skipf("this kernel refuses huge pages here: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			start := (uintptr(unsafe.Pointer(unsafe.SliceData(s))) + hugeSize - 1) &^ (hugeSize - 1)
			end := (uintptr(unsafe.Pointer(unsafe.SliceData(s))) + uintptr(cap(s))*4) &^ (hugeSize - 1)
			want := 0
			if end > start {
				want = int(end - start)
			}
			if n != want {
				t.Fatalf("advised %d bytes, want the %d of the whole huge pages inside", n, want)
			}
			for i := range s {
				if s[i] != uint32(i*2654435761) {
					t.Fatalf("s[%d] changed", i)
				}
			}
			if n == 0 {
				return
			}
			huge, err := hugeBytes(start, end)
			if err != nil {
				t.Fatal(err)
			}
			if huge < n {
				t.Fatalf("smaps counts %d bytes of the advised %d on huge pages", huge, n)
			}
			s[len(s)-1] = 7 // still writable
			runtime.KeepAlive(s)
		})
	}
}

// hugeBytes sums AnonHugePages over the mappings of /proc/self/smaps that
// lie within [start, end).
func hugeBytes(start, end uintptr) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, total := false, 0
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line)[0], "-"); ok && !strings.HasSuffix(line, ":") && !strings.Contains(lo, ":") {
			a, errA := strconv.ParseUint(lo, 16, 64)
			b, errB := strconv.ParseUint(hi, 16, 64)
			if errA == nil && errB == nil {
				in = uintptr(a) >= start && uintptr(b) <= end
				continue
			}
		}
		if in && strings.HasPrefix(line, "AnonHugePages:") {
			var kb int
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, "AnonHugePages:"), "%d kB", &kb); err != nil {
				return 0, err
			}
			total += kb << 10
		}
	}
	return total, sc.Err()
}

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
		if err != nil && !Transient(err) && !errors.Is(err, unix.EINVAL) {
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
