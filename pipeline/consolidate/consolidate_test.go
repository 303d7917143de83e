package consolidate_test

import (
	"context"
	"github.com/agentmem/agentmem/service"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/agentmem/agentmem/embed/hashing"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/memory/memorytest"
	"github.com/agentmem/agentmem/pipeline/consolidate"
	"github.com/agentmem/agentmem/wiring/local"
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
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(256), quiet, service.WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	emb := &memorytest.RecordingEmbedder{Embedder: b.Embedder}
	svc := service.NewService(b.Store, b.Index, emb, service.WithClock(clock))
	job := &consolidate.Job{Service: svc, Records: b.Store, Log: quiet, Config: consolidate.Config{PageSize: 3}}
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
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
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
	job := &consolidate.Job{Service: b.Service, Records: b.Store, Log: quiet}
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
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, org := range []string{"acme", "globex", "initech"} {
		b.Service.Create(ctx, memory.Caller{OrgID: org}, []service.NewMemory{{Content: memory.Content{Text: "hello from " + org}}})
	}
	job := &consolidate.Job{Service: b.Service, Records: b.Store, Log: quiet}
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
