package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestExtractionLog: the messages of a Create under memory.AwaitExtraction
// are in the log with the caller's agent, grouped in jobs of at most
// MaxJobMessages; other creates, other types and staged memories are not;
// ExtractionDone and deleting a message remove its entry; the log survives
// a reopen.
func TestExtractionLog(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	s := open(t, path)
	now := time.Now()
	msg := func(i int, typ memory.Type, staged bool) *memory.Memory {
		m := &memory.Memory{OrgID: "org-l", ID: fmt.Sprintf("m%04d", i), AgentID: "a1", Type: typ, Content: memory.Content{Text: fmt.Sprintf("turn %d", i)},
			EntityID: "ana", SessionID: "s", Durability: memory.DurabilityStandard, CreatedAt: now.UnixMilli() + int64(i), Version: 1, Pending: staged,
			Change: &memory.Change{Op: memory.OpCreate, By: memory.Actor{AgentID: "a1"}}}
		m.ContentHash = memory.ContentHash(m.Content.Text)
		return m
	}
	var logged []*memory.Memory
	for i := range memory.MaxJobMessages + 5 {
		logged = append(logged, msg(i, memory.TypeMessage, false))
	}
	if _, err := s.Create(memory.AwaitExtraction(ctx), append(slices.Clone(logged), msg(900, memory.TypeFact, false), msg(901, memory.TypeMessage, true))); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, []*memory.Memory{msg(902, memory.TypeMessage, false)}); err != nil {
		t.Fatal(err)
	}
	ids := func() []string {
		jobs, err := s.PendingExtraction(ctx, 10_000)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, j := range jobs {
			if j.OrgID != "org-l" || j.AgentID != "a1" || len(j.MessageIDs) > memory.MaxJobMessages {
				t.Fatalf("job %+v", j)
			}
			out = append(out, j.MessageIDs...)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		step func()
		want int // entries left
	}{
		{"after the create", func() {}, memory.MaxJobMessages + 5},
		{"after a reopen", func() { s.Close(); s = open(t, path) }, memory.MaxJobMessages + 5},
		{"after ExtractionDone of 10", func() {
			if err := s.ExtractionDone(ctx, "org-l", []string{"m0000", "m0001", "m0002", "m0003", "m0004", "m0005", "m0006", "m0007", "m0008", "m0009", "absent"}); err != nil {
				t.Fatal(err)
			}
		}, memory.MaxJobMessages - 5},
		{"after deleting a message", func() {
			if err := s.Delete(ctx, "org-l", "m0010"); err != nil {
				t.Fatal(err)
			}
		}, memory.MaxJobMessages - 6},
	} {
		tc.step()
		got := ids()
		if len(got) != tc.want || slices.Contains(got, "m0900") || slices.Contains(got, "m0901") || slices.Contains(got, "m0902") {
			t.Fatalf("%s: %d entries %v, want %d messages of the marked create", tc.name, len(got), got, tc.want)
		}
	}
	s.Close()
}
