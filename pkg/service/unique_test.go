package service_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// pagedStore is a store of n memories of org-a, the i-th created at i
// with the content hash hash(i), that answers List and Get only: enough
// for ListUnique's bounds without writing MaxUniqueScan memories.
type pagedStore struct {
	memory.Store
	ms []*memory.Memory // oldest first
}

func newPagedStore(n int, hash func(int) string) *pagedStore {
	s := &pagedStore{}
	for i := range n {
		s.ms = append(s.ms, &memory.Memory{ID: fmt.Sprintf("m%07d", i), OrgID: "org-a", CreatedAt: int64(i + 1),
			ContentHash: hash(i), Type: memory.TypeMessage, Visibility: memory.VisibilityShared})
	}
	return s
}

func (s *pagedStore) Get(_ context.Context, org, id string) (*memory.Memory, error) {
	for _, m := range s.ms {
		if m.ID == id && m.OrgID == org {
			return m, nil
		}
	}
	return nil, memory.Errorf(memory.ENOTFOUND, "memory %q not found", id)
}

func (s *pagedStore) List(_ context.Context, q memory.ListQuery) (memory.Page, error) {
	after := func(m *memory.Memory) bool {
		c := q.Cursor
		if c == nil {
			return true
		}
		if q.Ascending {
			return m.CreatedAt > c.CreatedAt || (m.CreatedAt == c.CreatedAt && m.ID > c.ID)
		}
		return m.CreatedAt < c.CreatedAt || (m.CreatedAt == c.CreatedAt && m.ID < c.ID)
	}
	order := make([]*memory.Memory, 0, len(s.ms)) // s.ms in q's order
	for k := range s.ms {
		if q.Ascending {
			order = append(order, s.ms[k])
		} else {
			order = append(order, s.ms[len(s.ms)-1-k])
		}
	}
	var out memory.Page
	for k, m := range order {
		if !after(m) {
			continue
		}
		if len(out.Memories) == q.Limit {
			last := order[k-1]
			out.Next = &memory.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
			break
		}
		out.Memories = append(out.Memories, m)
	}
	return out, nil
}

// TestListUniqueBounds: a unique listing reads at most MaxUniqueScan
// memories: a page that reaches the bound while skipping duplicates is
// returned short with a cursor, and a cursor with that many memories
// before it is refused naming unique.
func TestListUniqueBounds(t *testing.T) {
	n := service.MaxUniqueScan + 100
	cursorAt := func(i int) string { // the cursor after the i-th newest
		return (&memory.Cursor{CreatedAt: int64(n - i), ID: fmt.Sprintf("m%07d", n-1-i)}).Encode()
	}
	for _, tc := range []struct {
		name   string
		n      int // memories in the store (default MaxUniqueScan+100)
		hash   func(int) string
		limit  int
		cursor string
		want   int    // memories on the page
		next   bool   // a next cursor
		err    string // a prefix of the EINVALID message
	}{
		{"distinct contents fill the page", 0, func(i int) string { return fmt.Sprint(i) }, 10, "", 10, true, ""},
		{"a shallow cursor", 0, func(i int) string { return fmt.Sprint(i) }, 10, cursorAt(100), 10, true, ""},
		{"a deep cursor is refused", 0, func(i int) string { return fmt.Sprint(i) }, 10, cursorAt(service.MaxUniqueScan), 0, false, "unique:"},
		{"duplicates up to the bound: a short page", 0, func(i int) string { return fmt.Sprint(min(i, 1)) }, 2, "", 1, true, ""},
		{"the last page has no cursor", 5, func(i int) string { return fmt.Sprint(i % 3) }, 3, "", 3, false, ""},
		{"a full page keeps its cursor past its batch", 0, func(i int) string { return fmt.Sprint(i % 3) }, 3, "", 3, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			size := n
			if tc.n != 0 {
				size = tc.n
			}
			svc := service.NewService(newPagedStore(size, tc.hash), nil, hashing.New(8))
			page, err := svc.ListUnique(ctx, orgA, memory.Filter{}, tc.limit, tc.cursor)
			if tc.err != "" {
				if memory.ErrorCode(err) != memory.EINVALID || !strings.HasPrefix(memory.ErrorMessage(err), tc.err) {
					t.Fatalf("err %v, want EINVALID %s...", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Memories) != tc.want || (page.Next != nil) != tc.next {
				t.Fatalf("%d memories, next %v; want %d, next %v", len(page.Memories), page.Next, tc.want, tc.next)
			}
		})
	}
}
