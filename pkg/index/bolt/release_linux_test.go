package bolt_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// mappedKB is the resident part, in kB, of the process's maps of path
// (/proc/self/smaps), and whether path is mapped at all.
func mappedKB(t *testing.T, path string) (kb int, mapped bool) {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps:", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if fs := strings.Fields(line); len(fs) >= 5 && strings.Contains(fs[0], "-") && !strings.HasSuffix(fs[0], ":") {
			in = fs[len(fs)-1] == path
			mapped = mapped || in
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			n, err := strconv.Atoi(strings.Fields(rest)[0])
			if err != nil {
				t.Fatalf("smaps: %q: %v", line, err)
			}
			kb += n
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return kb, mapped
}

// TestReadsLeaveNoPagesResident checks that what reads the bbolt file
// through its map — the stamps' listing, a load at Open, and with
// ReleasePages a write and the re-score's float32 vectors — leaves none
// of its pages in the resident set, and that without it a write's and a
// search's pages stay.
func TestReadsLeaveNoPagesResident(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.db")
	corpus := memorytest.Corpus(memorytest.OrgA, 3000)
	ix, _ := open(t, dir, model)
	t.Cleanup(func() { ix.Close() })
	search := func(threshold int, release bool) func() error {
		return func() error {
			ix.SetANN(bolt.ANNConfig{Threshold: threshold})
			ix.ReleasePages(release)
			for _, m := range corpus[:50] {
				r, err := ix.Search(ctx, memory.IndexQuery{Filter: memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true},
					Text: "memo", Vector: m.Embedding, K: 10})
				if err != nil {
					return err
				}
				if len(r.Semantic) == 0 || r.Semantic[0].ID != m.ID {
					t.Fatalf("search for %s: %v", m.ID, r.Semantic)
				}
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name     string
		do       func() error
		resident bool // the pages read may stay
	}{
		{"upsert, pages kept", func() error { ix.ReleasePages(false); return ix.Upsert(ctx, corpus[:1000]) }, true},
		{"upsert, pages released", func() error { ix.ReleasePages(true); return ix.Upsert(ctx, corpus[1000:]) }, false},
		{"exact search, pages released", search(-1, true), false},
		{"graph search, pages released", search(1000, true), false},
		{"exact search, pages kept", search(-1, false), true},
		{"stamps", func() error {
			return ix.Stamps(func(string, string, uint64, int64) error { return nil })
		}, false},
		{"delete, pages released", func() error {
			ix.ReleasePages(true)
			return ix.Delete(ctx, memorytest.OrgA, []string{corpus[2999].ID})
		}, false},
		{"reopen", func() error {
			if err := ix.Close(); err != nil {
				return err
			}
			var err error
			ix, _, err = bolt.Open(dir, model, 64)
			return err
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.do(); err != nil {
				t.Fatal(err)
			}
			if err := ix.WaitANN(ctx); err != nil {
				t.Fatal(err)
			}
			kb, mapped := mappedKB(t, path)
			if !mapped {
				t.Fatalf("%s is not mapped", path)
			}
			if (kb != 0) != tc.resident {
				t.Errorf("after %s, %d kB of the index file are resident; want some: %v", tc.name, kb, tc.resident)
			}
		})
	}
}
