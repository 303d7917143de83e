package consolidate_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/service"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

var ctx = context.Background()

const day = 24 * time.Hour

func TestEffective(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cfg := consolidate.Config{}
	tests := []struct {
		name     string
		base     float64
		d        memory.Durability
		age      time.Duration
		accesses int64
		want     float64
	}{
		{"core never decays", 0.9, memory.DurabilityCore, 365 * day, 0, 0.9},
		{"standard halves every 90 days", 0.8, memory.DurabilityStandard, 90 * day, 0, 0.4},
		{"ephemeral halves every 7 days", 0.8, memory.DurabilityEphemeral, 14 * day, 0, 0.2},
		{"use boosts", 0.4, memory.DurabilityStandard, 0, 7, 0.55},
		{"boost is capped", 0.4, memory.DurabilityStandard, 0, 1 << 20, 0.7},
		{"never above 1", 0.95, memory.DurabilityCore, 0, 1000, 1},
	}
	for _, tc := range tests {
		got := consolidate.Effective(tc.base, tc.d, t0, t0.Add(tc.age), tc.accesses, cfg)
		if math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestRun(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := t0
	clock := func() time.Time { return now }
	b, quiet := openLocal(t, 256, service.WithClock(clock))
	emb := &memorytest.RecordingEmbedder{Embedder: b.Embedder}
	svc := service.NewService(b.Store, b.Index, emb, service.WithClock(clock))
	job := &consolidate.Job{Service: svc.Pipelines(), Records: b.Store, Log: quiet, Config: consolidate.Config{PageSize: 3}}
	c := memory.Caller{OrgID: "acme"}
	f := func(v float64) *float64 { return &v }
	mk := func(n service.NewMemory) string {
		n.CreatedAt = t0.UnixMilli()
		res, err := svc.Create(ctx, c, []service.NewMemory{n})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].ID
	}
	standard := mk(service.NewMemory{Type: memory.TypeFact, Content: memory.Content{Text: "The office wifi password rotates monthly"}, Importance: f(0.5)})
	ephemeral := mk(service.NewMemory{Type: memory.TypeCustom, Durability: memory.DurabilityEphemeral, Content: memory.Content{Text: "Lunch order today is sushi"}, Importance: f(0.5)})
	core := mk(service.NewMemory{Type: memory.TypeFact, Durability: memory.DurabilityCore, Content: memory.Content{Text: "The user is allergic to peanuts"}, Importance: f(0.9)})
	dupLow := mk(service.NewMemory{Type: memory.TypeFact, EntityID: "ana", Content: memory.Content{Text: "Ana likes green tea!"}, Importance: f(0.6), Confidence: f(0.6)})
	dupHigh := mk(service.NewMemory{Type: memory.TypeFact, EntityID: "ana", Content: memory.Content{Text: "Ana likes green tea."}, Importance: f(0.6), Confidence: f(0.9)})
	paris := mk(service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: memory.Content{Text: "Bo lives in Paris"}, Importance: f(0.6), Confidence: f(0.7)})
	rome := mk(service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: memory.Content{Text: "Bo lives in Rome"}, Importance: f(0.6), Confidence: f(0.9)})
	if err := svc.Relate(ctx, c, []memory.Relation{{FromID: rome, Type: memory.RelContradicts, ToID: paris, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	// Another org's memory is never touched by acme's run.
	other, _ := svc.Create(ctx, memory.Caller{OrgID: "globex"}, []service.NewMemory{{Durability: memory.DurabilityEphemeral, CreatedAt: t0.UnixMilli(), Content: memory.Content{Text: "globex note"}}})

	now = t0.Add(60 * day)
	emb.Purposes()
	rep, err := job.Run(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scanned != 7 || rep.Archived != 1 || rep.Merged != 1 || rep.Contradicted != 1 || rep.Deleted != 0 || rep.Decayed < 5 {
		t.Fatalf("first run: %+v", rep)
	}
	// Duplicates are found from the stored vectors: nothing is local.
	if calls := emb.Purposes(); len(calls) != 0 {
		t.Fatalf("the run embedded %d times", len(calls))
	}
	get := func(id string) *memory.Memory {
		m, err := svc.Get(ctx, c, id)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	if m := get(standard); math.Abs(m.Importance-0.315) > 0.001 || m.Archived {
		t.Fatalf("standard after 60 days: %v archived=%v", m.Importance, m.Archived)
	}
	if m := get(core); m.Importance != 0.9 || m.Archived {
		t.Fatalf("core after 60 days: %v", m.Importance)
	}
	for id, want := range map[string]bool{ephemeral: true, dupLow: true, dupHigh: false, paris: true, rome: false} {
		if got := get(id).Archived; got != want {
			t.Fatalf("%s archived = %v, want %v", id, got, want)
		}
	}
	if last, err := job.Last(ctx, "acme"); err != nil || last.Archived != 1 || last.FinishedAt == 0 {
		t.Fatalf("last run: %+v %v", last, err)
	}

	// A second run at the same time changes nothing.
	versions := map[string]int64{}
	for _, id := range []string{standard, ephemeral, core, dupLow, dupHigh, paris, rome} {
		versions[id] = get(id).Version
	}
	rep, err = job.Run(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decayed+rep.Archived+rep.Merged+rep.Contradicted+rep.Deleted != 0 || rep.Scanned != 7 {
		t.Fatalf("second run is not a no-op: %+v", rep)
	}
	for id, v := range versions {
		if got := get(id).Version; got != v {
			t.Fatalf("%s changed from version %d to %d on the second run", id, v, got)
		}
	}

	if res, _ := svc.Search(ctx, c, service.SearchRequest{Query: "Bo lives in Paris Rome", Mode: service.ModeKeyword}); len(res) != 1 || res[0].Memory.ID != rome {
		t.Fatalf("search after resolving the contradiction: %+v", res)
	}

	// After the retention period, archived memories are deleted.
	now = t0.Add(151 * day)
	rep, err = job.Run(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Deleted != 3 {
		t.Fatalf("retention run: %+v", rep)
	}
	for _, id := range []string{ephemeral, dupLow, paris} {
		if _, err := svc.Get(ctx, c, id); !memory.IsNotFound(err) {
			t.Fatalf("%s survives its retention: %v", id, err)
		}
	}
	if m := get(standard); m.Archived || m.Importance > 0.16 || m.Importance < 0.15 {
		t.Fatalf("standard after 151 days: %v archived=%v", m.Importance, m.Archived)
	}
	if m, err := svc.Get(ctx, memory.Caller{OrgID: "globex"}, other[0].ID); err != nil || m.Archived || m.Version != 1 {
		t.Fatalf("globex's memory was touched by acme's run: %+v %v", m, err)
	}
}

func TestResumeFromCheckpoint(t *testing.T) {
	b, quiet := openLocal(t, 64)
	c := memory.Caller{OrgID: "acme"}
	var in []service.NewMemory
	for i := 0; i < 10; i++ {
		in = append(in, service.NewMemory{Content: memory.Content{Text: "note number " + string(rune('a'+i))}})
	}
	if _, err := b.Service.Create(ctx, c, in); err != nil {
		t.Fatal(err)
	}
	page, _ := b.Service.List(ctx, c, memory.Filter{IncludeArchived: true}, 4, "")
	// An interrupted run left its checkpoint after the first 4 memories.
	started := time.Now().Add(-time.Hour).UnixMilli()
	b.Store.PutRecord(ctx, "acme", "JOB", "consolidation-checkpoint",
		consolidate.Report{OrgID: "acme", StartedAt: started, Cursor: page.Next.Encode(), Scanned: 4}, 0)
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet}
	rep, err := job.Run(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if rep.StartedAt != started || rep.Scanned != 10 || rep.FinishedAt == 0 {
		t.Fatalf("resumed run: %+v", rep)
	}
	// The next run starts afresh.
	if rep, _ := job.Run(ctx, "acme"); rep.StartedAt == started || rep.Scanned != 10 {
		t.Fatalf("next run: %+v", rep)
	}
}

func TestRunAll(t *testing.T) {
	b, quiet := openLocal(t, 64)
	for _, org := range []string{"acme", "globex", "initech"} {
		b.Service.Create(ctx, memory.Caller{OrgID: org}, []service.NewMemory{{Content: memory.Content{Text: "hello from " + org}}})
	}
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet}
	reps, err := job.RunAll(ctx)
	if err != nil || len(reps) != 3 {
		t.Fatalf("run all: %+v %v", reps, err)
	}
	for _, r := range reps {
		if r.Scanned != 1 || r.FinishedAt == 0 {
			t.Fatalf("report %+v", r)
		}
	}
}

// TestImportedHistorySurvives: history imported with an old createdAt
// decays from when the service learned it, so nothing read yet is archived
// by the first consolidation; it decays normally afterwards.
func TestImportedHistorySurvives(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	b, quiet := openLocal(t, 256, service.WithClock(clock))
	svc := service.NewService(b.Store, b.Index, b.Embedder, service.WithClock(clock))
	job := &consolidate.Job{Service: svc.Pipelines(), Records: b.Store, Log: quiet}
	c := memory.Caller{OrgID: "acme"}
	half := 0.5
	twoYearsAgo := now.Add(-730 * day).UnixMilli()
	res, err := svc.Create(ctx, c, []service.NewMemory{
		{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r", Content: memory.Content{Text: "We adopted a cat called Miso"}, CreatedAt: twoYearsAgo, Importance: &half},
		{Type: memory.TypeFact, Durability: memory.DurabilityEphemeral, Content: memory.Content{Text: "Ana was moving house that week"}, CreatedAt: twoYearsAgo, Importance: &half},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(ctx, "acme")
	if err != nil || rep.Archived != 0 {
		t.Fatalf("first consolidation after the import: %+v %v", rep, err)
	}
	for _, r := range res {
		m, _ := svc.Get(ctx, c, r.ID)
		if m.Archived || m.Importance != 0.5 || m.CreatedAt != twoYearsAgo {
			t.Fatalf("imported %q: archived=%v importance=%v createdAt=%d", m.Content.Text, m.Archived, m.Importance, m.CreatedAt)
		}
	}
	// 90 days after the import, the standard memory has halved, and the
	// ephemeral one, unused, is gone to the archive.
	now = now.Add(90 * day)
	if _, err := job.Run(ctx, "acme"); err != nil {
		t.Fatal(err)
	}
	if m, _ := svc.Get(ctx, c, res[0].ID); m.Archived || math.Abs(m.Importance-0.25) > 0.001 {
		t.Fatalf("90 days after the import: %v archived=%v", m.Importance, m.Archived)
	}
	if m, _ := svc.Get(ctx, c, res[1].ID); !m.Archived {
		t.Fatalf("the unused ephemeral memory survives 90 days: %v", m.Importance)
	}
}

// TestContradictionResolution: a contradiction is resolved only when one
// side is clearly stronger (confidence +0.2 and not older, or 30 days newer
// and not less confident); otherwise both stay, marked contested.
func TestContradictionResolution(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name             string
		confA, confB     float64
		agedA, agedB     time.Duration // how long before now each was said
		archivedA, archB bool
	}{
		{"more confident, same day", 0.9, 0.7, 0, 0, false, true},
		{"equal", 0.8, 0.8, 0, 0, false, false},
		{"slightly more confident", 0.85, 0.75, 0, 0, false, false},
		{"60 days newer, as confident", 0.8, 0.8, 0, 60 * day, false, true},
		{"10 days newer only", 0.8, 0.8, 0, 10 * day, false, false},
		{"newer but less confident", 0.6, 0.9, 0, 60 * day, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clock := func() time.Time { return now }
			b, quiet := openLocal(t, 256, service.WithClock(clock))
			job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet}
			c := memory.Caller{OrgID: "acme"}
			mk := func(text string, conf float64, aged time.Duration, neg bool) string {
				meta, _ := json.Marshal(memory.FactMeta{Subject: "Bo", Slot: "home", Value: text[len("Bo lives in "):], Negated: neg})
				res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeFact, EntityID: "Bo", Content: memory.Content{Text: text},
					Confidence: &conf, CreatedAt: now.Add(-aged).UnixMilli(), Metadata: meta}})
				if err != nil {
					t.Fatal(err)
				}
				return res[0].ID
			}
			a, bID := mk("Bo lives in Rome", tc.confA, tc.agedA, false), mk("Bo lives in Paris", tc.confB, tc.agedB, false)
			if err := b.Service.Relate(ctx, c, []memory.Relation{{FromID: a, Type: memory.RelContradicts, ToID: bID, Confidence: 0.9}}); err != nil {
				t.Fatal(err)
			}
			for run := 0; run < 2; run++ {
				if _, err := job.Run(ctx, "acme"); err != nil {
					t.Fatal(err)
				}
			}
			ma, _ := b.Service.Get(ctx, c, a)
			mb, _ := b.Service.Get(ctx, c, bID)
			if ma.Archived != tc.archivedA || mb.Archived != tc.archB {
				t.Fatalf("archived: %v %v, want %v %v", ma.Archived, mb.Archived, tc.archivedA, tc.archB)
			}
			resolved := tc.archivedA || tc.archB
			for _, m := range []*memory.Memory{ma, mb} {
				if fm := memory.FactMetaOf(m); !m.Archived && fm.Contested == resolved {
					t.Fatalf("%q contested=%v, resolved=%v: %s", m.Content.Text, fm.Contested, resolved, m.Metadata)
				}
			}
			if tc.archB && !strings.Contains(string(mb.Metadata), "contradicted by "+a) {
				t.Fatalf("the loser's archive reason does not name the winner: %s", mb.Metadata)
			}
		})
	}
}

// TestNearDuplicatesOfDifferentValues: facts close in meaning but giving
// one slot different values, or opposite polarity, are not merged.
func TestNearDuplicatesOfDifferentValues(t *testing.T) {
	b, quiet := openLocal(t, 256)
	// A duplicate threshold so low that every pair of facts qualifies.
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet, Config: consolidate.Config{DuplicateAt: 0.01}}
	c := memory.Caller{OrgID: "acme"}
	mk := func(text, slot, value string, neg bool) string {
		meta, _ := json.Marshal(memory.FactMeta{Subject: "Ana", Slot: slot, Value: value, Negated: neg})
		res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeFact, EntityID: "Ana", Content: memory.Content{Text: text}, Metadata: meta}})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].ID
	}
	ids := []string{
		mk("Ana lives in Lisbon", "home", "Lisbon", false),
		mk("Ana lives in Porto", "home", "Porto", false),
		mk("Ana eats gluten", "diet:gluten", "gluten", false),
		mk("Ana does not eat gluten", "diet:gluten", "gluten", true),
	}
	rep, err := job.Run(ctx, "acme")
	if err != nil || rep.Merged != 0 {
		t.Fatalf("%+v %v", rep, err)
	}
	for _, id := range ids {
		if m, _ := b.Service.Get(ctx, c, id); m.Archived {
			t.Fatalf("%q was merged away", m.Content.Text)
		}
	}
}

// TestMergesKeepEachReadersFacts: near duplicates of different audiences
// are merged only into a fact every reader of the one archived may read.
// An end user's own copy of a shared fact goes, however confident, and
// the shared one stays; two users' own copies both stay.
func TestMergesKeepEachReadersFacts(t *testing.T) {
	b, quiet := openLocal(t, 256)
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet, Config: consolidate.Config{DuplicateAt: 0.5}}
	c := memory.Caller{OrgID: "acme"}
	mk := func(subject, text, user string, conf float64) string {
		meta, _ := json.Marshal(memory.FactMeta{Subject: subject})
		n := service.NewMemory{Type: memory.TypeFact, EntityID: subject, Content: memory.Content{Text: text}, Metadata: meta, Confidence: &conf}
		if user != "" {
			n.Visibility, n.UserID, n.RoomID = "user", user, "room-"+user
		}
		res, err := b.Service.Create(ctx, c, []service.NewMemory{n})
		if err != nil {
			t.Fatal(err)
		}
		return res[0].ID
	}
	shared := mk("Dana", "Dana runs the Tuesday book club", "", 0.6)
	bobs := mk("Dana", "Dana runs the Tuesday book club!", "bob", 0.95)
	alice := mk("Eve", "Eve is training for the Berlin marathon", "alice", 0.9)
	carol := mk("Eve", "Eve is training for the Berlin marathon!", "carol", 0.7)
	// Contradictions across audiences: Bob's own, more confident and
	// newer, never archives the shared fact, which never names it.
	home := mk("Finn", "Finn lives in Lisbon", "", 0.5)
	moved := mk("Finn", "Finn moved to Porto", "bob", 0.99)
	if err := b.Service.Relate(ctx, c, []memory.Relation{{FromID: home, Type: memory.RelContradicts, ToID: moved, Confidence: 0.9}}); err != nil {
		t.Fatal(err)
	}
	var rep consolidate.Report
	for run := 0; run < 2; run++ {
		var err error
		if rep, err = job.Run(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, id  string
		archived  bool
		contested string // the id its contested mark names
	}{
		{"the shared fact stays, though less confident", shared, false, ""},
		{"the user's own copy of it goes", bobs, true, ""},
		{"one user's fact stays", alice, false, ""},
		{"another user's copy of it stays", carol, false, ""},
		{"a shared fact contradicted by a user's own stays, unmarked", home, false, ""},
		{"the user's own is contested by the shared one", moved, false, home},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := b.Service.Get(ctx, c, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if m.Archived != tc.archived {
				t.Fatalf("%q archived %v, want %v (report %+v, metadata %s)", m.Content.Text, m.Archived, tc.archived, rep, m.Metadata)
			}
			if got := strings.Join(memory.FactMetaOf(m).ContestedWith, ","); !m.Archived && got != tc.contested {
				t.Fatalf("%q contested with %q, want %q", m.Content.Text, got, tc.contested)
			}
			for _, other := range []string{shared, bobs, alice, carol, home, moved} {
				if other != tc.id && other != tc.contested && !m.MayHold(mustGet(t, b.Service, c, other)) && strings.Contains(string(m.Metadata), other) {
					t.Fatalf("%q names %s, which its readers may not read: %s", m.Content.Text, other, m.Metadata)
				}
			}
		})
	}
}

// mustGet reads memory id as c, failing the test if it cannot.
func mustGet(t *testing.T, s *service.Service, c memory.Caller, id string) *memory.Memory {
	t.Helper()
	m, err := s.Get(ctx, c, id)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRunRepairsContextsOnce: a context written before threading followed
// memory.MayHold (an end user's own turn as the context of the room's
// reply after it) is re-threaded by the first run over the org, in the
// store and the index; later runs no longer check.
func TestRunRepairsContextsOnce(t *testing.T) {
	b, quiet := openLocal(t, 256)
	job := &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet}
	c := memory.Caller{OrgID: "acme"}
	msg := func(speaker, user, vis, say string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, RoomID: "r1", EntityID: speaker, UserID: user, Visibility: vis, Content: memory.Content{Text: say}, CreatedAt: at}
	}
	res, err := b.Service.Create(ctx, c, []service.NewMemory{
		msg("host", "", "", "The planning meeting moves to Thursday", 1_700_000_000_000),
		msg("bob", "bob", "user", "the spare key is under the flowerpot", 1_700_000_001_000),
		msg("alice", "alice", "room", "I will bring the projector", 1_700_000_002_000),
	})
	if err != nil {
		t.Fatal(err)
	}
	// What the earlier threading wrote: Bob's own turn as Alice's context.
	reply, err := b.Store.Get(ctx, "acme", res[2].ID)
	if err != nil {
		t.Fatal(err)
	}
	reply.Context = "bob: the spare key is under the flowerpot"
	if err := b.Store.Update(ctx, reply); err != nil {
		t.Fatal(err)
	}
	if err := b.Index.Upsert(ctx, []*memory.Memory{reply}); err != nil {
		t.Fatal(err)
	}
	rep, err := job.Run(ctx, "acme")
	if err != nil || !rep.CheckContexts || rep.ContextsRewritten != 1 {
		t.Fatalf("first run: %+v %v, want one context rewritten", rep, err)
	}
	if m := mustGet(t, b.Service, c, res[2].ID); m.Context != "host: The planning meeting moves to Thursday" {
		t.Fatalf("the reply's context after the run: %q", m.Context)
	}
	alice, err := b.Service.Act(ctx, c, memory.Acting{UserID: "alice", RoomID: "r1"})
	if err != nil {
		t.Fatal(err)
	}
	found, err := b.Service.Search(ctx, alice, service.SearchRequest{Query: "spare key flowerpot", Mode: service.ModeKeyword, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range found {
		if strings.Contains(r.Memory.Context, "flowerpot") {
			t.Fatalf("Alice still finds %q with Bob's turn as its context", r.Memory.Content.Text)
		}
	}
	if len(found) != 0 {
		t.Fatalf("Alice's keyword search for Bob's words finds %d memories", len(found))
	}
	rep, err = job.Run(ctx, "acme")
	if err != nil || rep.CheckContexts || rep.ContextsRewritten != 0 {
		t.Fatalf("second run: %+v %v, want no check", rep, err)
	}
}

// openLocal opens an embedded backend in a temporary directory, with a
// hashing embedder of dims dimensions and a logger that discards, closed
// when the test ends.
func openLocal(t *testing.T, dims int, opts ...service.Option) (*local.Backend, *slog.Logger) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(dims), quiet, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b, quiet
}
