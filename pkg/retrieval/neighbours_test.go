package retrieval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// sessionStore serves List over one session's turns, in time order; each
// read waits delay(its cursor's id, ascending) first, or fails with err.
type sessionStore struct {
	memory.Store
	turns []*memory.Memory
	delay func(at string, asc bool) time.Duration
	err   error
}

func (s sessionStore) List(ctx context.Context, q memory.ListQuery) (memory.Page, error) {
	if s.delay != nil {
		select {
		case <-time.After(s.delay(q.Cursor.ID, q.Ascending)):
		case <-ctx.Done():
			return memory.Page{}, ctx.Err()
		}
	}
	if s.err != nil {
		return memory.Page{}, s.err
	}
	at := slices.IndexFunc(s.turns, func(m *memory.Memory) bool { return m.ID == q.Cursor.ID })
	var out []*memory.Memory
	for i := range q.Limit {
		j := at - 1 - i
		if q.Ascending {
			j = at + 1 + i
		}
		if j < 0 || j >= len(s.turns) {
			break
		}
		out = append(out, s.turns[j])
	}
	return memory.Page{Memories: out}, nil
}

// TestNeighboursReadAtOnce: the anchors' reads run concurrently, and the
// outcome is the same whichever read ends first (a turn next to two
// anchors takes the better anchor's share, and its rank); a failed read
// fails the stage.
func TestNeighboursReadAtOnce(t *testing.T) {
	var turns []*memory.Memory
	for i := range 8 {
		turns = append(turns, &memory.Memory{ID: fmt.Sprintf("t%d", i), OrgID: "o", Type: memory.TypeMessage,
			SessionID: "s", CreatedAt: int64(i)})
	}
	results := func() []Result { // anchors t3, t5 and t1, best first
		return []Result{{Memory: turns[3], Score: 1}, {Memory: turns[5], Score: 0.9}, {Memory: turns[1], Score: 0.8}}
	}
	describe := func(rs []Result) string {
		var out string
		for _, r := range rs {
			out += fmt.Sprintf("%s %.3f", r.Memory.ID, r.Score)
			if n := r.Lists[StageNeighbours]; n != nil {
				out += fmt.Sprintf(" (anchor %d)", n.Rank)
			}
			out += "; "
		}
		return out
	}
	f := memory.Filter{OrgID: "o"}
	var want string
	for _, tc := range []struct {
		name  string
		delay func(string, bool) time.Duration
	}{
		{"no wait", nil},
		{"the first anchor's reads end last", func(at string, _ bool) time.Duration {
			return map[string]time.Duration{"t3": 30 * time.Millisecond, "t5": 15 * time.Millisecond}[at]
		}},
		{"the later turns first", func(_ string, asc bool) time.Duration {
			if asc {
				return 0
			}
			return 20 * time.Millisecond
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := sessionStore{turns: turns, delay: tc.delay}
			got, err := Neighbours{}.apply(context.Background(), store, caller, f, results())
			if err != nil {
				t.Fatal(err)
			}
			if want == "" {
				want = describe(got)
				if len(got) != 8 {
					t.Fatalf("%d results, want the 3 anchors and their 5 neighbours: %s", len(got), want)
				}
				return
			}
			if d := describe(got); d != want {
				t.Fatalf("outcome depends on the reads' order:\n got %s\nwant %s", d, want)
			}
		})
	}
	boom := errors.New("store down")
	if _, err := (Neighbours{}).apply(context.Background(), sessionStore{turns: turns, err: boom}, caller, f, results()); !errors.Is(err, boom) {
		t.Fatalf("a failed read: %v, want %v", err, boom)
	}
}
