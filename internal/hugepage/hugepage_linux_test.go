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

// TestAdvise advises arrays of several sizes, some with capacity to
// spare, and checks that the contents are unchanged, that the part in use
// is on huge pages (its whole 2 MiB pages, counted by /proc/self/smaps),
// and that the spare capacity was not faulted in.
func TestAdvise(t *testing.T) {
	skipWithoutCollapse(t)
	cases := []struct {
		name          string
		length, spare int // bytes
	}{
		{"eight in use of forty", 16 << 20, 64 << 20},
		{"empty", 0, 0},
		{"under one huge page", 1 << 20, 0},
		{"eight huge pages and a bit", 16<<20 + 4096, 0},
		{"forty", 80 << 20, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mapped(t, c.length/4, (c.length+c.spare)/4)
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
			if err != nil {
				t.Fatal(err)
			}
			base := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
			start := (base + hugeSize - 1) &^ (hugeSize - 1)
			used := (base + uintptr(c.length)) &^ (hugeSize - 1)
			end := (base + uintptr(c.length+c.spare)) &^ (hugeSize - 1)
			want := 0
			if used > start {
				want = int(used - start)
			}
			if n != want {
				t.Fatalf("%d bytes on huge pages, want the %d of the whole huge pages in use", n, want)
			}
			for i := range s {
				if s[i] != uint32(i*2654435761) {
					t.Fatalf("s[%d] changed", i)
				}
			}
			if end <= start {
				return
			}
			huge, err := hugeBytes(start, end)
			if err != nil {
				t.Fatal(err)
			}
			if huge < n || huge > n+hugeSize {
				t.Fatalf("smaps counts %d bytes on huge pages; want the %d in use (and at most one more huge page): the spare capacity was faulted in", huge, n)
			}
			if c.spare > 0 {
				grown := append(s, 7) // the spare capacity: writable, in place
				if unsafe.SliceData(grown) != unsafe.SliceData(s) || grown[len(s)] != 7 {
					t.Fatal("an append within the capacity moved or lost its element")
				}
			}
		})
	}
}

// mapped returns a slice of length n and capacity c in a mapping of its
// own, unmapped when the test ends. smaps counts huge pages per mapping,
// and the kernel merges neighbouring mappings of the same flags: in the
// Go heap, an array advised by an earlier case, freed but still mapped,
// could merge with the one under test, and its huge pages would be
// counted with them, or the range under test would lie in a larger
// mapping and be counted not at all. The slice starts a page into its
// mapping, so that the mapping's unadvised first page always separates
// it from whatever lies before.
func mapped(t *testing.T, n, c int) []uint32 {
	t.Helper()
	b, err := unix.Mmap(-1, 0, 4096+c*4+hugeSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := unix.Munmap(b); err != nil {
			t.Error(err)
		}
	})
	if c == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&b[4096])), c)[:n]
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

// skipWithoutCollapse skips a test on a kernel that cannot collapse pages
// in use into huge ones (before Linux 6.1, or with huge pages disabled for
// the process), where Advise only marks the range.
func skipWithoutCollapse(t *testing.T) {
	t.Helper()
	probe := make([]byte, 2*hugeSize)
	for i := range probe {
		probe[i] = 1
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(probe)))
	start := (base + hugeSize - 1) &^ (hugeSize - 1)
	page := probe[start-base : start-base+hugeSize]
	if err := unix.Madvise(page, unix.MADV_COLLAPSE); errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EPERM) {
		t.Skipf("this kernel does not collapse pages into huge ones: %v", err)
	}
	runtime.KeepAlive(probe)
}

// TestTrackRetry: after a collapse refused for want of free huge pages,
// Track tries nothing (and Due says so) for Retry, even for an array that moved meanwhile,
// then tries again; a refusal for another reason is not retried. The
// kernel's answers are played by a fake.
func TestTrackRetry(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	clock := start
	var answers []error
	defer func(a func(unsafe.Pointer, uintptr, uintptr) (int, error), n func() time.Time) {
		adviseRange, now = a, n
	}(adviseRange, now)
	now = func() time.Time { return clock }
	adviseRange = func(_ unsafe.Pointer, length, _ uintptr) (int, error) {
		err := answers[0]
		answers = answers[1:]
		if err != nil {
			return 0, err
		}
		return int(length), nil
	}
	var tr Tracker
	a := make([]byte, 4<<20)
	moved := make([]byte, 4<<20)
	steps := []struct {
		name      string
		s         []byte
		after     time.Duration // since start
		answer    error         // the kernel's, when Track asks it
		wantTried bool
	}{
		{"no free huge page", a, 0, unix.EAGAIN, true},
		{"at once again", a, time.Second, nil, false},
		{"moved, within Retry", moved, Retry - time.Second, nil, false},
		{"after Retry", moved, Retry, nil, true},
		{"advised, not again", moved, Retry + time.Second, nil, false},
		{"moved back, out of memory", a, 2 * Retry, unix.ENOMEM, true},
		{"within Retry of that", a, 3*Retry - time.Second, nil, false},
		{"refused outright", a, 3 * Retry, unix.EINVAL, true},
		{"not retried", a, 5 * Retry, nil, false},
	}
	for _, st := range steps {
		clock = start.Add(st.after)
		answers = []error{st.answer}
		if due := Due(&tr, st.s, 1<<20); due != st.wantTried {
			t.Fatalf("%s: due %v, want %v", st.name, due, st.wantTried)
		}
		_, tried, err := Track(&tr, st.s, 1<<20)
		if tried != st.wantTried {
			t.Fatalf("%s: tried %v, want %v", st.name, tried, st.wantTried)
		}
		if tried && !errors.Is(err, st.answer) {
			t.Fatalf("%s: err %v, want %v", st.name, err, st.answer)
		}
	}
}
