package knowledge_test

import (
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// TestExplorerPending: GET /v1/knowledge/status's count. A bulk write
// left to the worker is counted pending until ExtractPending takes it;
// only an org-level caller may count (the count spans the whole org); a
// store without extraction status says so.
func TestExplorerPending(t *testing.T) {
	st, k := offlineKnowledge(t)
	k.DeferFrom, k.OnPending = 10, func(string) {}
	ms := make([]*memory.Memory, 12)
	for i := range ms {
		ms[i] = memorytest.New("o", "", memory.TypeMessage, fmt.Sprintf("I tried fencing in lesson %d", i), memorytest.Base+int64(i)*1000)
	}
	if _, err := st.Create(ctx, ms); err != nil {
		t.Fatal(err)
	}
	if err := k.Index(ctx, "o", ms); err != nil {
		t.Fatal(err)
	}
	x := &knowledge.Explorer{Index: st, Status: st, Store: st}
	org := memory.Caller{OrgID: "o"}
	if got, err := x.Pending(ctx, org); err != nil || got != (knowledge.PendingStatus{Pending: 12}) {
		t.Fatalf("after a bulk write: %+v, %v; want 12 pending", got, err)
	}
	if _, err := k.ExtractPending(ctx, "o", 0); err != nil {
		t.Fatal(err)
	}
	if got, err := x.Pending(ctx, org); err != nil || got != (knowledge.PendingStatus{}) {
		t.Fatalf("after the worker: %+v, %v; want none pending", got, err)
	}
	for _, tc := range []struct {
		name string
		x    *knowledge.Explorer
		c    memory.Caller
		code string
	}{
		{"an agent-bound key", x, memory.Caller{OrgID: "o", AgentID: "bot"}, memory.EFORBIDDEN},
		{"an end-user token", x, memory.Caller{OrgID: "o", Binding: &memory.Acting{UserID: "alice"}}, memory.EFORBIDDEN},
		{"no org", x, memory.Caller{}, memory.EUNAUTHORIZED},
		{"no extraction status", &knowledge.Explorer{Index: st, Store: st}, org, memory.ENOTFOUND},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.x.Pending(ctx, tc.c); memory.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want %s", err, tc.code)
			}
		})
	}
}
