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
		// First: an array freed by a case before it can leave huge pages
		// in the memory the runtime hands out next.
		{"eight in use of forty", 16 << 20, 64 << 20},
		{"empty", 0, 0},
		{"under one huge page", 1 << 20, 0},
		{"eight huge pages and a bit", 16<<20 + 4096, 0},
		{"forty", 80 << 20, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := make([]uint32, c.length/4, (c.length+c.spare)/4)
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
			s = append(s, 7) // still writable, and room to grow
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
