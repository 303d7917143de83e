package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

func open(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStoreContract(t *testing.T) {
	memorytest.StoreSuite(t, func(t *testing.T) memory.Store {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestDocumentContract(t *testing.T) {
	memorytest.DocumentSuite(t, func(t *testing.T) memorytest.DocumentStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRelationContract(t *testing.T) {
	memorytest.RelationSuite(t, func(t *testing.T) memorytest.RelationStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRecordContract(t *testing.T) {
	memorytest.RecordSuite(t, func(t *testing.T) memory.RecordStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestRestartKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	corpus := memorytest.Corpus(memorytest.OrgA, 50)
	if _, err := s.Create(ctx, corpus); err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, memorytest.OrgA, []string{corpus[3].ID}, memorytest.Base+5); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, path)
	defer s.Close()
	n, err := s.Count(ctx, memory.Filter{OrgID: memorytest.OrgA, IncludeArchived: true})
	if err != nil || n != 50 {
		t.Fatalf("after restart: count %d (%v), want 50", n, err)
	}
	m, err := s.Get(ctx, memorytest.OrgA, corpus[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.AccessCount != 1 || m.Content.Text != corpus[3].Content.Text || len(m.Embedding) != len(corpus[3].Embedding) {
		t.Fatalf("after restart: %+v", m)
	}
	again := *corpus[1] // a fact: deduplicated by content
	again.ID = "another-id"
	res, err := s.Create(ctx, []*memory.Memory{&again})
	if err != nil {
		t.Fatal(err)
	}
	if !res[0].Duplicate || res[0].ID != corpus[1].ID {
		t.Fatalf("dedup index lost across restart: %+v", res[0])
	}
}

func TestKeyContract(t *testing.T) {
	memorytest.KeySuite(t, func(t *testing.T) memory.KeyStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

func TestUsageContract(t *testing.T) {
	memorytest.UsageSuite(t, func(t *testing.T) memorytest.UsageStore {
		s := open(t, filepath.Join(t.TempDir(), "memories.db"))
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestCommitDocument stages a new version of a document beside the old
// one and commits it: until the commit only the old version matches the
// visible filters; the commit flips both versions and puts the status
// record in the same transaction; a database of the previous schema gains
// the pending column on open.
func TestCommitDocument(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	defer s.Close()
	org, doc := memorytest.OrgA, "doc-1"
	mk := func(id string, pending bool) *memory.Memory {
		m := memorytest.Corpus(org, 1)[0]
		m.ID, m.DocumentID, m.Type, m.Kind, m.Pending = id, doc, memory.TypeCustom, "", pending
		m.ContentHash = memory.ContentHash(id)
		return m
	}
	if _, err := s.Create(ctx, []*memory.Memory{mk("old-1", false), mk("old-2", false), mk("new-1", true), mk("new-2", true)}); err != nil {
		t.Fatal(err)
	}
	ids := func(pending bool) []string {
		t.Helper()
		p, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: org, DocumentID: doc, IncludeArchived: true, Pending: pending}, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range p.Memories {
			if m.Pending != pending {
				t.Fatalf("%s: pending %v in a list of pending=%v", m.ID, m.Pending, pending)
			}
			out = append(out, m.ID)
		}
		slices.Sort(out)
		return out
	}
	steps := []struct {
		name             string
		commit           *memory.DocumentCommit
		visible, pending []string
	}{
		{name: "staged", visible: []string{"old-1", "old-2"}, pending: []string{"new-1", "new-2"}},
		{name: "committed", commit: &memory.DocumentCommit{OrgID: org, DocumentID: doc, Retire: []string{"old-2"},
			RecordKind: "DOC", RecordID: doc, Record: map[string]string{"state": "indexed"}},
			visible: []string{"new-1", "new-2", "old-1"}, pending: []string{"old-2"}},
	}
	for _, st := range steps {
		if st.commit != nil {
			shown, err := s.CommitDocument(ctx, *st.commit)
			slices.Sort(shown)
			if err != nil || !slices.Equal(shown, []string{"new-1", "new-2"}) {
				t.Fatalf("%s: commit %v %v", st.name, shown, err)
			}
			var rec map[string]string
			if _, err := s.GetRecord(ctx, org, "DOC", doc, &rec); err != nil || rec["state"] != "indexed" {
				t.Fatalf("%s: record %v %v", st.name, rec, err)
			}
		}
		if got := ids(false); !slices.Equal(got, st.visible) {
			t.Fatalf("%s: visible %v, want %v", st.name, got, st.visible)
		}
		if got := ids(true); !slices.Equal(got, st.pending) {
			t.Fatalf("%s: pending %v, want %v", st.name, got, st.pending)
		}
		if n, err := s.Count(ctx, memory.Filter{OrgID: org, DocumentID: doc}); err != nil || n != len(st.visible) {
			t.Fatalf("%s: count %d %v", st.name, n, err)
		}
	}
	gone, err := s.DeleteWhere(ctx, memory.Filter{OrgID: org, DocumentID: doc, Pending: true, IncludeArchived: true})
	if err != nil || !slices.Equal(gone, []string{"old-2"}) {
		t.Fatalf("delete the pending: %v %v", gone, err)
	}

	// A database written before the pending column existed.
	old := filepath.Join(t.TempDir(), "old.db")
	db, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE memories (org_id TEXT NOT NULL, id TEXT NOT NULL, agent_id TEXT NOT NULL, type TEXT NOT NULL,
		kind TEXT NOT NULL, room_id TEXT NOT NULL, entity_id TEXT NOT NULL, session_id TEXT NOT NULL, document_id TEXT NOT NULL,
		durability TEXT NOT NULL, dedup_key TEXT NOT NULL, created_at INTEGER NOT NULL, archived INTEGER NOT NULL,
		version INTEGER NOT NULL, access_count INTEGER NOT NULL DEFAULT 0, last_accessed_at INTEGER NOT NULL DEFAULT 0,
		body BLOB NOT NULL, embedding_model TEXT NOT NULL, embedding BLOB, PRIMARY KEY (org_id, id)) WITHOUT ROWID`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s2 := open(t, old)
	defer s2.Close()
	if _, err := s2.Create(ctx, []*memory.Memory{mk("x", false)}); err != nil {
		t.Fatal(err)
	}
	if n, err := s2.Count(ctx, memory.Filter{OrgID: org}); err != nil || n != 1 {
		t.Fatalf("migrated store: count %d %v", n, err)
	}
}

// TestListUsesTheNarrowestIndex: a listing by an attribute and a type
// reads an index keyed by both, not every memory of the type in the org.
// (A listing by entity and type read the org's whole type index, 200 ms
// at 100,000 memories, until memories_entity_type: the retrieval lists
// ask whether a name speaks in the memories with one such listing.)
func TestListUsesTheNarrowestIndex(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "memories.db"))
	t.Cleanup(func() { s.Close() })
	msg := []memory.Type{memory.TypeMessage}
	tests := []struct {
		name   string
		filter memory.Filter
		index  string
	}{
		{"the org", memory.Filter{}, "memories_created"},
		{"a type", memory.Filter{Types: msg}, "memories_type (org_id=? AND type=?)"},
		{"an entity", memory.Filter{EntityID: "Ana"}, "memories_entity (org_id=? AND entity_id=?)"},
		{"an entity's messages", memory.Filter{EntityID: "Ana", Types: msg}, "memories_entity_type (org_id=? AND entity_id=? AND type=?)"},
		{"an entity's messages in a view", memory.Filter{EntityID: "Ana", Types: msg, Viewer: "x"}, "memories_entity_type (org_id=? AND entity_id=? AND type=?)"},
		{"a room's messages", memory.Filter{RoomID: "r", Types: msg}, "memories_room_type (org_id=? AND room_id=? AND type=?)"},
		{"a session's messages", memory.Filter{SessionID: "s", Types: msg}, "memories_session_type (org_id=? AND session_id=? AND type=?)"},
		{"a world", memory.Filter{WorldID: "w"}, "memories_world (org_id=? AND world_id=?)"},
		{"the org for a reader", memory.Filter{Audiences: []string{"room:r", "user:u"}}, "memories_created"},
		{"the turn before a room's message (threading)", memory.Filter{RoomID: "r", Types: msg, AgentID: memory.OrgScope, End: 1_700_000_000_000,
			IncludeArchived: true, Audiences: []string{"room:r", "world:w"}}, "memories_room_type (org_id=? AND room_id=? AND type=? AND created_at<?)"},
		{"the turn before a session's shared message", memory.Filter{SessionID: "s", Types: msg, AgentID: memory.OrgScope, End: 1_700_000_000_000,
			IncludeArchived: true, Audiences: []string{}}, "memories_session_type (org_id=? AND session_id=? AND type=? AND created_at<?)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.filter.OrgID = "o"
			plan, err := s.ListPlan(memory.ListQuery{Filter: tc.filter, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(plan, "USING INDEX "+tc.index) || strings.Contains(plan, "TEMP B-TREE") {
				t.Fatalf("plan:\n%s\nwant a search of %s, in order", plan, tc.index)
			}
			if !strings.Contains(plan, "SEARCH acc.accesses USING PRIMARY KEY (acc_org=? AND acc_memory=?)") {
				t.Fatalf("plan:\n%s\nwant each row's access row by its key", plan)
			}
		})
	}
}

// TestOpensADatabaseWithoutVisibility: a database written before the
// world_id and audience columns existed opens; its memories and their
// knowledge read as shared (no audience), and a world filter finds them by
// the world their bodies hold.
func TestOpensADatabaseWithoutVisibility(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.db")
	s := open(t, path)
	org := memorytest.OrgA
	m := memorytest.New(org, "", memory.TypeFact, "Ana likes the lake", memorytest.Base)
	m.RoomID, m.WorldID = "room-1", "world-1"
	if _, err := s.Create(ctx, []*memory.Memory{m}); err != nil {
		t.Fatal(err)
	}
	refs := memory.Knowledge{Entities: []memory.Entity{{Name: "Ana", Types: []string{"person"}}}}.Refs(m.ID)
	if err := s.PutKnowledge(ctx, org, m.ID, m.Attrs(), "test/1", refs); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// Back to the schema of the previous release.
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DROP INDEX memories_world`, `ALTER TABLE memories DROP COLUMN world_id`, `ALTER TABLE memories DROP COLUMN audience`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for _, table := range []string{"knowledge_refs", "knowledge_terms", "knowledge_props"} {
		for _, col := range []string{"world_id", "audience"} {
			if _, err := db.Exec(`ALTER TABLE ` + table + ` DROP COLUMN ` + col); err != nil {
				t.Fatalf("drop %s.%s: %v", table, col, err)
			}
		}
	}
	db.Close()

	s = open(t, path)
	defer s.Close()
	for _, f := range []memory.Filter{
		{OrgID: org, WorldID: "world-1"},
		{OrgID: org, Audiences: []string{}},
		{OrgID: org, Audiences: []string{memory.RoomAudience("room-9")}, WorldID: "world-1"},
	} {
		if n, err := s.Count(ctx, f); err != nil || n != 1 {
			t.Fatalf("count %+v: %d %v, want 1", f, n, err)
		}
		ps, err := s.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: []string{"ana"}})
		if err != nil || len(ps) != 1 || ps[0].Attrs.WorldID != "world-1" || ps[0].Attrs.Audience != "" {
			t.Fatalf("lookup %+v: %+v %v, want the one posting, in world-1, without audience", f, ps, err)
		}
	}
	if n, err := s.Count(ctx, memory.Filter{OrgID: org, WorldID: "world-2"}); err != nil || n != 0 {
		t.Fatalf("count in another world: %d %v", n, err)
	}
}

// TestOrgsSeeksEachOrg: Orgs lists an org that has only records (a
// document being ingested) beside those with memories, and its plan
// seeks each table's index once per org instead of reading every row.
func TestOrgsSeeksEachOrg(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "memories.db"))
	t.Cleanup(func() { s.Close() })
	for _, org := range []string{"org-c", "org-a"} {
		if _, err := s.Create(ctx, memorytest.Corpus(org, 4)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutRecord(ctx, "org-b", "DOC", "d1", map[string]string{"state": "pending"}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutRecord(ctx, "org-a", "DOC", "d2", map[string]string{"state": "pending"}, 0); err != nil {
		t.Fatal(err)
	}
	got, err := s.Orgs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"org-a", "org-b", "org-c"}; !slices.Equal(got, want) {
		t.Fatalf("orgs %q; want %q", got, want)
	}
	plan, err := s.OrgsPlan()
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range strings.Split(plan, "\n") {
		if strings.HasPrefix(strings.TrimSpace(step), "SCAN memories") || strings.HasPrefix(strings.TrimSpace(step), "SCAN records") {
			t.Fatalf("plan reads a whole table:\n%s", plan)
		}
	}
}

// TestTouchManyIDs records one access to more memories than SQLite takes
// variables in one statement (32,766): the service's access writer
// gathers up to service.maxGathered ids into one call.
func TestTouchManyIDs(t *testing.T) {
	ctx := context.Background()
	s, corpus := openWithCorpus(t, 3)
	ids := make([]string, 0, 40_003)
	for i := range 40_000 {
		ids = append(ids, fmt.Sprintf("absent-%05d", i))
	}
	for _, m := range corpus {
		ids = append(ids, m.ID)
	}
	if err := s.Touch(ctx, memorytest.OrgA, ids, memorytest.Base+9); err != nil {
		t.Fatal(err)
	}
	for _, m := range corpus {
		got, err := s.Get(ctx, memorytest.OrgA, m.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.AccessCount != 1 || got.LastAccessedAt != memorytest.Base+9 {
			t.Fatalf("%s: count %d last %d, want 1 at %d", m.ID, got.AccessCount, got.LastAccessedAt, memorytest.Base+9)
		}
	}
}

// TestTouchLeavesTheStoreFile: recording accesses commits to the access
// file only, so a reader's cache of the store's file stays valid (its
// data_version, which changes at another connection's commit, stays),
// while a create changes it; the counts read back through the join, on
// one memory and in a listing.
func TestTouchLeavesTheStoreFile(t *testing.T) {
	ctx := context.Background()
	s, corpus := openWithCorpus(t, 3)
	c, err := s.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	store0, access0, err := sqlite.DataVersions(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Touch(ctx, memorytest.OrgA, []string{corpus[0].ID, corpus[0].ID, corpus[1].ID}, memorytest.Base+7); err != nil {
		t.Fatal(err)
	}
	store1, access1, err := sqlite.DataVersions(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if store1 != store0 || access1 == access0 {
		t.Fatalf("a touch: store file version %d → %d, access file %d → %d; want only the access file's to change", store0, store1, access0, access1)
	}
	if _, err := s.Create(ctx, memorytest.Corpus(memorytest.OrgB, 1)); err != nil {
		t.Fatal(err)
	}
	if store2, _, err := sqlite.DataVersions(ctx, c); err != nil || store2 == store1 {
		t.Fatalf("a create left the store file's version at %d (%v): the probe sees nothing", store2, err)
	}
	got, err := s.GetMany(ctx, memorytest.OrgA, []string{corpus[0].ID, corpus[1].ID, corpus[2].ID})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{2, 1, 0} {
		if m := got[corpus[i].ID]; m == nil || m.AccessCount != want {
			t.Fatalf("memory %d: %+v, want %d accesses", i, m, want)
		}
	}
}
