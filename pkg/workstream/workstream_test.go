package workstream_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/workstream"
)

var ctx = context.Background()

// backends opens a fresh record store of each kind: a SQLite file, and a
// table of DynamoDB Local (DYNAMODB_ENDPOINT; skipped without it unless
// REQUIRE_DYNAMODB=1).
var backends = []struct {
	name string
	open func(t *testing.T) memory.RecordStore
}{
	{"sqlite", func(t *testing.T) memory.RecordStore {
		s, err := sqlite.Open(filepath.Join(t.TempDir(), "workstreams.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"dynamodb", func(t *testing.T) memory.RecordStore {
		c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: testenv.Get(t, "DYNAMODB_ENDPOINT"), AccessKey: "local", SecretKey: "local"})
		if err != nil {
			t.Fatal(err)
		}
		var b [4]byte
		rand.Read(b[:])
		name := "test-workstream-" + hex.EncodeToString(b[:])
		if err := dynamodb.CreateTable(ctx, c, name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dynamodb.DeleteTable(context.Background(), c, name) })
		return dynamodb.New(c, name)
	}},
}

// The callers of the tests.
var (
	orgA   = memory.Caller{OrgID: memorytest.OrgA}
	agentX = memory.Caller{OrgID: memorytest.OrgA, AgentID: memorytest.AgentX}
	agentY = memory.Caller{OrgID: memorytest.OrgA, AgentID: memorytest.AgentY}
	orgB   = memory.Caller{OrgID: memorytest.OrgB}
)

// each runs f on fresh workstreams over every backend.
func each(t *testing.T, f func(t *testing.T, ws *workstream.Service), opts ...workstream.Option) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			f(t, workstream.New(b.open(t), opts...))
		})
	}
}

// code fails t unless err has the code want ("" for nil).
func code(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := memory.ErrorCode(err); got != want {
		t.Fatalf("%s: %v (code %q), want code %q", what, err, got, want)
	}
}

// texts is every text the block and its history hold: the entries, and
// what each compaction merged or replaced.
func texts(b *workstream.Block) (present, traced map[string]bool) {
	present, traced = map[string]bool{}, map[string]bool{}
	for _, e := range b.Entries {
		present[e.Text] = true
	}
	for _, cp := range b.History {
		for _, e := range cp.Replaced {
			traced[e.Text] = true
		}
		for _, m := range cp.Merged {
			traced[m.Entry.Text] = true
		}
	}
	return present, traced
}

func TestCompactionKeepsATrace(t *testing.T) {
	roles := []string{"chief", "cto", "designer", "ops"}
	each(t, func(t *testing.T, ws *workstream.Service) {
		w, err := ws.Create(ctx, agentX, workstream.NewWorkstream{Name: "launch"})
		code(t, "create", err, "")
		if w.Limit != workstream.DefaultLimit || w.AgentID != memorytest.AgentX || w.Visibility != memory.VisibilityAgent {
			t.Fatalf("created: %+v", w)
		}
		var written []string
		var b *workstream.Block
		for i := range 20 {
			text := fmt.Sprintf("note %d: the launch step number %d is assigned", i, i)
			if i == 2 {
				text = "remember: the customer demo is on the 14th"
			}
			written = append(written, text)
			b, err = ws.Append(ctx, agentX, w.ID, workstream.NewEntry{Role: roles[i%len(roles)], Text: text})
			code(t, fmt.Sprintf("append %d", i), err, "")
			if len(b.Entries) > workstream.DefaultLimit {
				t.Fatalf("after %d appends the block holds %d entries, more than %d", i+1, len(b.Entries), workstream.DefaultLimit)
			}
		}
		b, err = ws.Get(ctx, agentX, w.ID)
		code(t, "get", err, "")
		if len(b.Entries) > 15 {
			t.Fatalf("the block holds %d entries after 20 appends", len(b.Entries))
		}
		if len(b.History) == 0 {
			t.Fatalf("no compaction in the history: %+v", b)
		}
		present, traced := texts(b)
		for _, text := range written {
			if !present[text] && !traced[text] {
				t.Errorf("%q is neither in the block nor in a compaction record", text)
			}
		}
		if !present["remember: the customer demo is on the 14th"] {
			t.Errorf("the entry that says remember was folded away: %+v", b.Entries)
		}
		if !present[written[19]] {
			t.Errorf("the newest entry was folded away")
		}
		var summaries int
		for _, e := range b.Entries {
			if e.Summary {
				summaries++
				if !strings.HasPrefix(e.Text, "Folded ") || len(e.Folded) == 0 {
					t.Errorf("summary entry: %+v", e)
				}
			}
		}
		if summaries == 0 {
			t.Errorf("no summary entry in the block: %+v", b.Entries)
		}
		for _, cp := range b.History {
			if cp.Method != "offline" || cp.Summary == nil || cp.After >= cp.Before || len(cp.Replaced) < 2 {
				t.Errorf("compaction record: %+v", cp)
			}
		}
	})
}

func TestDuplicatesAreMerged(t *testing.T) {
	each(t, func(t *testing.T, ws *workstream.Service) {
		w, err := ws.Create(ctx, orgA, workstream.NewWorkstream{ID: "dups", Limit: 4})
		code(t, "create", err, "")
		for _, e := range []workstream.NewEntry{
			{Role: "chief", Text: "Ship on Friday."}, {Role: "cto", Text: "use postgres"},
			{Role: "chief", Text: "ship on friday"}, {Role: "ops", Text: "pager rota starts monday"},
			{Role: "chief", Text: "SHIP ON FRIDAY!"},
		} {
			_, err = ws.Append(ctx, orgA, w.ID, e)
			code(t, "append", err, "")
		}
		b, err := ws.Get(ctx, orgA, w.ID)
		code(t, "get", err, "")
		if len(b.Entries) != 3 || len(b.History) != 1 || len(b.History[0].Merged) != 2 {
			t.Fatalf("block after duplicates: %+v history %+v", b.Entries, b.History)
		}
		if b.Entries[2].Text != "SHIP ON FRIDAY!" || b.Entries[2].Repeats != 2 {
			t.Errorf("the duplicates merge into the newest, counting the repeats: %+v", b.Entries[2])
		}
	})
}

// fakeLLM answers every call with a fixed summary (a fake of the model,
// not of the store).
type fakeLLM struct{ calls int }

func (f *fakeLLM) Call(ctx context.Context, system, user string, tool memory.Tool) (json.RawMessage, memory.Usage, error) {
	f.calls++
	if tool.Name != "summarise_block" || !strings.Contains(user, "- chief: ") {
		return nil, memory.Usage{}, memory.Errorf(memory.EINTERNAL, "unexpected call %q %q", tool.Name, user)
	}
	return json.RawMessage(`{"summary":"The chief set the launch plan."}`), memory.Usage{Calls: 1}, nil
}

func TestCompactionWithAnLLM(t *testing.T) {
	llm := &fakeLLM{}
	each(t, func(t *testing.T, ws *workstream.Service) {
		w, err := ws.Create(ctx, orgA, workstream.NewWorkstream{Limit: 5})
		code(t, "create", err, "")
		for i := range 6 {
			_, err = ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Role: "chief", Text: fmt.Sprintf("plan item %d", i)})
			code(t, "append", err, "")
		}
		b, err := ws.Get(ctx, orgA, w.ID)
		code(t, "get", err, "")
		if len(b.History) != 1 || b.History[0].Method != "llm" || b.History[0].Summary.Text != "The chief set the launch plan." {
			t.Fatalf("history: %+v", b.History)
		}
		present, traced := texts(b)
		for i := range 6 {
			if text := fmt.Sprintf("plan item %d", i); !present[text] && !traced[text] {
				t.Errorf("%q is lost", text)
			}
		}
	}, workstream.WithLLM(llm))
	if llm.calls == 0 {
		t.Fatal("the LLM was never called")
	}
}

func TestIsolation(t *testing.T) {
	userBob := memory.Caller{OrgID: memorytest.OrgA, Acting: &memory.Acting{UserID: "bob"}}
	userAmy := memory.Caller{OrgID: memorytest.OrgA, Acting: &memory.Acting{UserID: "amy"}}
	each(t, func(t *testing.T, ws *workstream.Service) {
		x, err := ws.Create(ctx, agentX, workstream.NewWorkstream{ID: "x-block"})
		code(t, "create x", err, "")
		shared, err := ws.Create(ctx, orgA, workstream.NewWorkstream{ID: "shared-block"})
		code(t, "create shared", err, "")
		bob, err := ws.Create(ctx, orgA, workstream.NewWorkstream{ID: "bob-block", Visibility: "user", UserID: "bob"})
		code(t, "create bob", err, "")
		for _, id := range []string{x.ID, shared.ID, bob.ID} {
			_, err = ws.Append(ctx, orgA, id, workstream.NewEntry{Role: "chief", Text: "a note"})
			code(t, "append "+id, err, "")
		}
		for _, tc := range []struct {
			name   string
			c      memory.Caller
			id     string
			read   string // the code of a read
			append string // the code of an append
		}{
			{"org b reads org a's shared block", orgB, shared.ID, memory.ENOTFOUND, memory.ENOTFOUND},
			{"org b reads agent x's block", orgB, x.ID, memory.ENOTFOUND, memory.ENOTFOUND},
			{"agent y reads agent x's block", agentY, x.ID, memory.ENOTFOUND, memory.ENOTFOUND},
			{"agent x reads its own block", agentX, x.ID, "", ""},
			{"agent x reads the shared block, changes it only with write:org", agentX, shared.ID, "", memory.EFORBIDDEN},
			{"amy reads bob's block", userAmy, bob.ID, memory.ENOTFOUND, memory.ENOTFOUND},
			{"bob reads his block", userBob, bob.ID, "", ""},
			{"the org's admin view reads bob's block", orgA, bob.ID, "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := ws.Get(ctx, tc.c, tc.id)
				code(t, "get", err, tc.read)
				_, err = ws.Append(ctx, tc.c, tc.id, workstream.NewEntry{Role: "ops", Text: "another note"})
				code(t, "append", err, tc.append)
				if tc.read != "" {
					code(t, "delete", ws.Delete(ctx, tc.c, tc.id), tc.read)
				}
			})
		}
		for _, tc := range []struct {
			c    memory.Caller
			want []string
		}{
			{orgA, []string{"bob-block", "shared-block", "x-block"}},
			{agentX, []string{"bob-block", "shared-block", "x-block"}},
			{agentY, []string{"bob-block", "shared-block"}},
			{userAmy, []string{"shared-block", "x-block"}}, // an org key acting for amy: every agent, not bob's audience
			{orgB, nil},
		} {
			list, _, err := ws.List(ctx, tc.c, workstream.Page{})
			code(t, "list", err, "")
			var got []string
			for _, w := range list {
				got = append(got, w.ID)
			}
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("%+v lists %v, want %v", tc.c, got, tc.want)
			}
		}
		code(t, "agent y creates for agent x", func() error {
			_, err := ws.Create(ctx, agentY, workstream.NewWorkstream{AgentID: memorytest.AgentX})
			return err
		}(), memory.EFORBIDDEN)
		code(t, "delete own", ws.Delete(ctx, agentX, x.ID), "")
		_, err = ws.Get(ctx, orgA, x.ID)
		code(t, "get deleted", err, memory.ENOTFOUND)
	})
}

func TestBadInput(t *testing.T) {
	each(t, func(t *testing.T, ws *workstream.Service) {
		w, err := ws.Create(ctx, orgA, workstream.NewWorkstream{ID: "w"})
		code(t, "create", err, "")
		for _, tc := range []struct {
			name  string
			err   error
			field string
		}{
			{"limit too small", func() error { _, err := ws.Create(ctx, orgA, workstream.NewWorkstream{Limit: 1}); return err }(), "limit:"},
			{"id taken", func() error { _, err := ws.Create(ctx, orgA, workstream.NewWorkstream{ID: "w"}); return err }(), "id:"},
			{"room visibility without a room", func() error {
				_, err := ws.Create(ctx, orgA, workstream.NewWorkstream{Visibility: "room"})
				return err
			}(), "visibility:"},
			{"no role", func() error { _, err := ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Text: "x"}); return err }(), "role:"},
			{"role with spaces", func() error {
				_, err := ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Role: "the chief", Text: "x"})
				return err
			}(), "role:"},
			{"blank text", func() error {
				_, err := ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Role: "a", Text: " "})
				return err
			}(), "text:"},
			{"long text", func() error {
				_, err := ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Role: "a", Text: strings.Repeat("x", workstream.MaxTextBytes+1)})
				return err
			}(), "text:"},
			{"importance", func() error {
				imp := 2.0
				_, err := ws.Append(ctx, orgA, w.ID, workstream.NewEntry{Role: "a", Text: "x", Importance: &imp})
				return err
			}(), "importance"},
		} {
			if memory.ErrorCode(tc.err) == "" || !strings.Contains(tc.err.Error(), tc.field) {
				t.Errorf("%s: %v, want an error naming %s", tc.name, tc.err, tc.field)
			}
		}
	})
}
