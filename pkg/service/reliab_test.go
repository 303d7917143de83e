package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// memLine is an export line of one org-scope memory.
func memLine(t *testing.T, id, txt string) []byte {
	t.Helper()
	js, err := json.Marshal(service.ExportLine{Kind: service.LineMemory, Memory: &memory.Memory{ID: id, Type: memory.TypeFact, Content: text(txt),
		Importance: 0.5, Durability: memory.DurabilityStandard, CreatedAt: 1, Version: 1}})
	check(t, err)
	return js
}

// budget is a fake quota: at most limit memories, counted across the
// reservations it granted (our own logic, no server to stand in for).
type budget struct {
	mu       sync.Mutex
	limit    int64
	reserved int64
}

func (b *budget) reserve(_ context.Context, add memory.OrgUsage) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.reserved+add.Memories > b.limit {
		return nil, memory.Errorf(memory.EQUOTA, "quota memories: holds %d of %d, adds %d", b.reserved, b.limit, add.Memories)
	}
	b.reserved += add.Memories
	return func() {}, nil
}

func TestImportStopsAtTheFirstLineOverQuota(t *testing.T) {
	for _, tc := range []struct {
		name             string
		lines, limit     int
		wantCreated      int
		wantStopLine     int // 0: no stop
		wantErrorContain string
	}{
		{"within", 5, 10, 5, 0, ""},
		{"exactly at the limit", 10, 10, 10, 0, ""},
		{"over in the first batch", 12, 7, 7, 8, "line 8: quota memories"},
		{"over in a later batch", memory.MaxBatch + 30, memory.MaxBatch + 3, memory.MaxBatch + 3, memory.MaxBatch + 4, fmt.Sprintf("line %d:", memory.MaxBatch+4)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			q := &budget{limit: int64(tc.limit)}
			im, err := b.Service.NewImporter(orgA)
			check(t, err)
			im.WithQuota(q.reserve)
			var stop error
			for i := 1; i <= tc.lines && stop == nil; i++ {
				stop = im.Add(ctx, i, memLine(t, fmt.Sprintf("mem_q%04d", i), fmt.Sprintf("fact number %d", i)))
			}
			if stop == nil {
				_, stop = im.Finish(ctx)
			}
			n, err := b.Service.Count(ctx, orgA, memory.Filter{})
			check(t, err)
			if n != tc.wantCreated {
				t.Fatalf("stored %d memories, want %d (limit %d)", n, tc.wantCreated, tc.limit)
			}
			if tc.wantStopLine == 0 {
				check(t, stop)
				return
			}
			if memory.ErrorCode(stop) != memory.EQUOTA || !strings.Contains(memory.ErrorMessage(stop), tc.wantErrorContain) {
				t.Fatalf("stop = %v, want EQUOTA containing %q", stop, tc.wantErrorContain)
			}
		})
	}
}

func TestImportedRecordValues(t *testing.T) {
	rec := func(id string, v map[string]any) []byte {
		raw, _ := json.Marshal(v)
		js, _ := json.Marshal(service.ExportLine{Kind: service.LineRecord, Record: &memory.Record{Kind: service.DocumentRecordKind, ID: id, Value: raw}})
		return js
	}
	for _, tc := range []struct {
		name    string
		c       memory.Caller
		value   map[string]any
		field   string // the field the error names; "" when the record is imported
		wantKey string
	}{
		{"another org's key is made the caller's", orgA, map[string]any{"orgId": "org-b", "key": "org-b/_org/guide.md", "state": "indexed"}, "", "org-a/_org/guide.md"},
		{"agent record", orgA, map[string]any{"agentId": "x", "key": "org-b/x/a/b.txt", "state": "failed"}, "", "org-a/x/a/b.txt"},
		{"agent segment not the record's agent", orgA, map[string]any{"agentId": "x", "key": "org-a/y/a.txt", "state": "indexed"}, "record.value.key", ""},
		{"no key", orgA, map[string]any{"state": "indexed"}, "record.value.key", ""},
		{"control character in the name", orgA, map[string]any{"key": "org-a/_org/a\x01b.md", "state": "indexed"}, "record.value.key", ""},
		{"parent directory", orgA, map[string]any{"key": "org-a/_org/../b.md", "state": "indexed"}, "record.value.key", ""},
		{"unknown state", orgA, map[string]any{"key": "org-a/_org/a.md", "state": "done"}, "record.value.state", ""},
		{"id not the record's", orgA, map[string]any{"id": "doc-other", "key": "org-a/_org/a.md", "state": "indexed"}, "record.value.id", ""},
		{"key not a string", orgA, map[string]any{"key": 7, "state": "indexed"}, "record.value.key", ""},
		{"agent key, other agent", agentX, map[string]any{"agentId": "y", "key": "org-a/y/a.md", "state": "indexed"}, "record.value.agentId", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			im, err := b.Service.NewImporter(tc.c)
			check(t, err)
			check(t, im.Add(ctx, 1, rec("doc-1", tc.value)))
			rep, err := im.Finish(ctx)
			check(t, err)
			var got map[string]any
			_, gerr := b.Store.GetRecord(ctx, "org-a", service.DocumentRecordKind, "doc-1", &got)
			if tc.field != "" {
				if rep.Records.Failed != 1 || len(rep.Errors) != 1 || !strings.HasPrefix(rep.Errors[0].Message, tc.field+":") {
					t.Fatalf("report %+v, want one error naming %s", rep, tc.field)
				}
				if !memory.IsNotFound(gerr) {
					t.Fatalf("a refused record was stored: %v %v", got, gerr)
				}
				return
			}
			check(t, gerr)
			if rep.Records.Created != 1 || got["key"] != tc.wantKey || got["orgId"] != "org-a" || got["id"] != "doc-1" {
				t.Fatalf("report %+v, record %v; want key %q in org-a", rep, got, tc.wantKey)
			}
		})
	}
}

func TestImportedOrphanRecordsCountAsDocuments(t *testing.T) {
	b := open(t)
	// A quota of 2 documents over a usage that, like the stores', counts
	// document memories only (none here): the importer adds the orphans.
	var mu sync.Mutex
	held := int64(0)
	quota := func(_ context.Context, add memory.OrgUsage) (func(), error) {
		mu.Lock()
		defer mu.Unlock()
		if held+add.Documents > 2 {
			return nil, memory.Errorf(memory.EQUOTA, "quota documents")
		}
		held += add.Documents
		return func() { mu.Lock(); held -= add.Documents; mu.Unlock() }, nil
	}
	run := func(first, n int) error {
		im, err := b.Service.NewImporter(orgA)
		check(t, err)
		im.WithQuota(quota)
		for i := first; i < first+n; i++ {
			raw, _ := json.Marshal(map[string]any{"key": fmt.Sprintf("org-a/_org/d%d.md", i), "state": "failed"})
			js, _ := json.Marshal(service.ExportLine{Kind: service.LineRecord, Record: &memory.Record{Kind: service.DocumentRecordKind, ID: fmt.Sprintf("doc-%d", i), Value: raw}})
			check(t, im.Add(ctx, i-first+1, js))
		}
		_, err = im.Finish(ctx)
		return err
	}
	stored := func() int {
		recs, _, err := b.Store.ListRecords(ctx, "org-a", service.DocumentRecordKind, "", 100)
		check(t, err)
		return len(recs)
	}
	for _, tc := range []struct {
		name        string
		first, n    int
		stopLine    int // 0: no stop
		wantRecords int
	}{
		{"five into a quota of two", 1, 5, 3, 2},
		{"a second import finds the org full", 10, 2, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(tc.first, tc.n)
			if memory.ErrorCode(err) != memory.EQUOTA || !strings.Contains(memory.ErrorMessage(err), fmt.Sprintf("line %d:", tc.stopLine)) {
				t.Fatalf("import = %v, want EQUOTA at line %d", err, tc.stopLine)
			}
			if n := stored(); n != tc.wantRecords {
				t.Fatalf("%d records stored, want %d", n, tc.wantRecords)
			}
			if held != 0 {
				t.Fatalf("%d documents still reserved after the import", held)
			}
		})
	}
}

func TestAgentKeysChangeOrgMemoriesOnlyWithWriteOrg(t *testing.T) {
	writer := memory.Caller{OrgID: "org-a", AgentID: "x", Grants: memory.AgentGrants}
	writeOrg := memory.Caller{OrgID: "org-a", AgentID: "x", Grants: memory.AgentGrants | memory.GrantWriteOrg}
	for _, tc := range []struct {
		name   string
		c      memory.Caller
		scope  string // the memory's: "org" or "agent" (x's)
		forbid bool
	}{
		{"agent key, org memory", writer, "org", true},
		{"agent key with write:org, org memory", writeOrg, "org", false},
		{"agent key, its own memory", writer, "agent", false},
		{"org key, org memory", orgA, "org", false},
	} {
		for _, op := range []string{"patch", "put by key"} {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				b := open(t)
				owner := orgA
				n := service.NewMemory{Scope: "org", ExternalID: "policy", Content: text("Refunds within 30 days.")}
				if tc.scope == "agent" {
					owner, n.Scope = agentX, ""
				}
				id := create(t, b.Service, owner, n)[0].ID
				var err error
				switch op {
				case "patch":
					c := text("Refunds never allowed.")
					_, err = b.Service.Update(ctx, tc.c, id, service.Patch{Content: &c})
				case "put by key":
					n.Content = text("Refunds never allowed.")
					if tc.c.AgentID == "" && tc.scope == "org" {
						n.Scope = "org"
					}
					_, _, err = b.Service.PutByKey(ctx, tc.c, n, service.PutCondition{})
				}
				m, gerr := b.Service.Get(ctx, orgA, id)
				check(t, gerr)
				if tc.forbid {
					if memory.ErrorCode(err) != memory.EFORBIDDEN || !strings.Contains(memory.ErrorMessage(err), "write:org") {
						t.Fatalf("err = %v, want EFORBIDDEN naming write:org", err)
					}
					if m.Content.Text != "Refunds within 30 days." {
						t.Fatalf("the org memory changed: %q", m.Content.Text)
					}
					return
				}
				check(t, err)
				if m.Content.Text != "Refunds never allowed." {
					t.Fatalf("text %q after the change", m.Content.Text)
				}
			})
		}
	}
}
