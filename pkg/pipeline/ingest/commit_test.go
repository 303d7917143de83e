package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// hookEmbedder is the real hashing embedder with a hook run before each
// document batch it embeds (queries pass straight through).
type hookEmbedder struct {
	*hashing.Embedder
	calls atomic.Int32
	hook  func(call int) error
}

func (e *hookEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	if p == memory.PurposeDocument && e.hook != nil {
		if err := e.hook(int(e.calls.Add(1))); err != nil {
			return nil, err
		}
	}
	return e.Embedder.Embed(ctx, texts, p)
}

// doc is a document of n paragraphs, each naming word, so that every
// fragment of one version holds it and no fragment of another does.
func doc(word string, n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Paragraph %d of the %s edition explains %s handling in detail, step %d.\n\n", i, word, word, i)
	}
	return []byte(b.String())
}

// visible reports what callers can see of the document: memories listed,
// and keyword hits for word.
func visible(t *testing.T, svc *service.Service, c memory.Caller, docID, word string) (listed, found int) {
	t.Helper()
	n, err := svc.Count(ctx, c, memory.Filter{DocumentID: docID})
	if err != nil {
		t.Fatal(err)
	}
	hits, err := svc.Search(ctx, c, service.SearchRequest{Query: word, Mode: service.ModeKeyword, K: memory.MaxK})
	if err != nil {
		t.Fatal(err)
	}
	return n, len(hits)
}

func staged(t *testing.T, svc *service.Service, org string) int {
	t.Helper()
	p, err := svc.Pipelines().ListStaged(ctx, memory.Filter{OrgID: org, IncludeArchived: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	return len(p.Memories)
}

// TestIngestIsAllOrNothing replaces a document whose new version fails, is
// abandoned by its caller, or succeeds, part-way through its batches: the
// old version stays whole and alone until the new one is whole, nothing of
// the new one shows before its commit, and nothing staged is left behind.
func TestIngestIsAllOrNothing(t *testing.T) {
	c := memory.Caller{OrgID: "org-a"}
	const key = "org-a/_org/guide.md"
	docID := ingest.DocumentID(c.OrgID, key)
	errEmbed := errors.New("embedder went away")
	cases := []struct {
		name string
		// at batch 3 of the new version: fail, cancel the caller, or nothing.
		fail, cancel bool
		wantState    string
	}{
		{name: "the embedder fails part-way", fail: true, wantState: ingest.StateFailed},
		{name: "the caller disconnects part-way", cancel: true, wantState: ingest.StateFailed},
		{name: "the new version commits", wantState: ingest.StateIndexed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
			emb := &hookEmbedder{Embedder: hashing.New(64)}
			b, err := local.Open(ctx, t.TempDir(), emb, quiet)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			p := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 0}, Log: quiet}
			v1, err := p.Ingest(ctx, c, key, doc("alpha", 150), "")
			if err != nil || v1.State != ingest.StateIndexed || v1.Fragments < 50 {
				t.Fatalf("version 1: %+v %v", v1, err)
			}
			oldListed, oldFound := visible(t, b.Service, c, docID, "alpha")
			if oldListed != v1.Fragments+1 || oldFound == 0 {
				t.Fatalf("version 1 shows %d memories, %d hits", oldListed, oldFound)
			}

			rctx, cancel := context.WithCancel(ctx)
			defer cancel()
			var during [2]int
			emb.calls.Store(0)
			emb.hook = func(call int) error {
				if call != 3 {
					return nil
				}
				// Two batches of the new version are staged by now.
				if n := staged(t, b.Service, c.OrgID); n == 0 {
					t.Errorf("nothing staged after two batches")
				}
				during[0], during[1] = visible(t, b.Service, c, docID, "omega")
				if l, _ := visible(t, b.Service, c, docID, "alpha"); l != oldListed {
					t.Errorf("while staging, %d memories listed, want the old %d", l, oldListed)
				}
				switch {
				case tc.fail:
					return errEmbed
				case tc.cancel:
					cancel()
				}
				return nil
			}
			v2, err := p.Ingest(rctx, c, key, doc("omega", 420), "")
			emb.hook = nil
			if v2.State != tc.wantState {
				t.Fatalf("version 2: %+v %v", v2, err)
			}
			if during[1] != 0 {
				t.Errorf("while staging, a search found %d fragments of the new version", during[1])
			}
			if n := staged(t, b.Service, c.OrgID); n != 0 {
				t.Errorf("%d staged memories left behind", n)
			}
			listed, foundOld := visible(t, b.Service, c, docID, "alpha")
			_, foundNew := visible(t, b.Service, c, docID, "omega")
			if tc.wantState == ingest.StateIndexed {
				if err != nil || listed != v2.Fragments+1 || foundOld != 0 || foundNew == 0 {
					t.Fatalf("after commit: %d listed (want %d), %d old hits, %d new hits, err %v", listed, v2.Fragments+1, foundOld, foundNew, err)
				}
				return
			}
			if err == nil || listed != oldListed || foundOld != oldFound || foundNew != 0 {
				t.Fatalf("after a failed version: %d listed (want %d), %d old hits (want %d), %d new hits, err %v",
					listed, oldListed, foundOld, oldFound, foundNew, err)
			}
			st, gerr := p.Get(ctx, c, docID)
			if gerr != nil || st.State != ingest.StateFailed || st.Reason == "" {
				t.Fatalf("status %+v %v", st, gerr)
			}
			if tc.cancel && !strings.Contains(st.Reason, "cancelled") {
				t.Fatalf("reason %q", st.Reason)
			}
		})
	}
}

// TestRecover rolls back what a crash leaves: a document pending with
// staged fragments, a commit whose retired fragments were not yet deleted,
// and a document still in flight (younger than the grace), left alone.
func TestRecover(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	now := time.Now()
	p := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200}, Log: quiet,
		Now: func() time.Time { return now }}
	c := memory.Caller{OrgID: "org-r"}
	other := memory.Caller{OrgID: "org-s"}

	// A committed document, then leftovers of a crash for three others.
	done, err := p.Ingest(ctx, c, "org-r/_org/done.md", doc("kept", 20), "")
	if err != nil {
		t.Fatal(err)
	}
	crash := func(org memory.Caller, key, word string, started time.Time, n int) string {
		id := ingest.DocumentID(org.OrgID, key)
		st := ingest.Status{ID: id, OrgID: org.OrgID, Key: key, State: ingest.StatePending, StartedAt: started.UnixMilli()}
		if _, err := b.Store.PutRecord(ctx, org.OrgID, ingest.RecordKind, id, st, 0); err != nil {
			t.Fatal(err)
		}
		var in []service.NewMemory
		for i := 0; i < n; i++ {
			pos := i
			in = append(in, service.NewMemory{Type: memory.TypeFragment, DocumentID: id, Position: &pos,
				Content: memory.Content{Text: fmt.Sprintf("%s fragment %d", word, i)}})
		}
		if _, err := b.Service.Pipelines().Stage(ctx, org, in); err != nil {
			t.Fatal(err)
		}
		return id
	}
	crashed := crash(c, "org-r/_org/crashed.md", "lost", now.Add(-2*time.Hour), 30)
	inflight := crash(c, "org-r/_org/inflight.md", "busy", now, 5)
	otherOrg := crash(other, "org-s/_org/crashed.md", "lost", now.Add(-2*time.Hour), 7)
	// A commit that retired memories of done.md and stopped before deleting
	// them: staged memories of a document that is not pending.
	var retired []service.NewMemory
	for i := 0; i < 4; i++ {
		pos := 100 + i
		retired = append(retired, service.NewMemory{Type: memory.TypeFragment, DocumentID: done.ID, Position: &pos,
			Content: memory.Content{Text: fmt.Sprintf("retired fragment %d", i)}})
	}
	if _, err := b.Service.Pipelines().Stage(ctx, c, retired); err != nil {
		t.Fatal(err)
	}
	if n := staged(t, b.Service, c.OrgID); n != 30+5+4 {
		t.Fatalf("staged before recovery: %d", n)
	}

	cases := []struct {
		org      string
		grace    time.Duration
		want     ingest.Recovered
		leftOver int
	}{
		{org: c.OrgID, grace: time.Hour, want: ingest.Recovered{Documents: 1, Memories: 34}, leftOver: 5},
		{org: other.OrgID, grace: time.Hour, want: ingest.Recovered{Documents: 1, Memories: 7}},
		{org: c.OrgID, grace: 0, want: ingest.Recovered{Documents: 1, Memories: 5}}, // the start of the only process
		{org: c.OrgID, grace: 0}, // nothing left: idempotent
	}
	for i, tc := range cases {
		got, err := p.Recover(ctx, tc.org, tc.grace)
		if err != nil || got != tc.want {
			t.Fatalf("case %d: recovered %+v %v, want %+v", i, got, err, tc.want)
		}
		if n := staged(t, b.Service, tc.org); n != tc.leftOver {
			t.Fatalf("case %d: %d staged left, want %d", i, n, tc.leftOver)
		}
	}
	for _, d := range []struct {
		c  memory.Caller
		id string
	}{{c, crashed}, {c, inflight}, {other, otherOrg}} {
		st, err := p.Get(ctx, d.c, d.id)
		if err != nil || st.State != ingest.StateFailed || st.Reason != ingest.Interrupted {
			t.Fatalf("%s: %+v %v", d.id, st, err)
		}
	}
	if listed, found := visible(t, b.Service, c, done.ID, "kept"); listed != done.Fragments+1 || found == 0 {
		t.Fatalf("the committed document after recovery: %d listed, %d found", listed, found)
	}
	if st, err := p.Get(ctx, c, done.ID); err != nil || st.State != ingest.StateIndexed {
		t.Fatalf("the committed document's status: %+v %v", st, err)
	}
	if _, found := visible(t, b.Service, c, crashed, "lost"); found != 0 {
		t.Fatalf("a rolled-back document is searchable: %d hits", found)
	}
}

// TestStagingIsolation: a failed run of agent x's document discards only
// x's staged memories, never agent y's document of the same name nor org
// b's, and each committed document is seen by its owner alone.
func TestStagingIsolation(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	emb := &hookEmbedder{Embedder: hashing.New(64)}
	b, err := local.Open(ctx, t.TempDir(), emb, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200}, Log: quiet}
	x, y := memory.Caller{OrgID: "org-a", AgentID: "x"}, memory.Caller{OrgID: "org-a", AgentID: "y"}
	ob := memory.Caller{OrgID: "org-b"}
	owners := []struct {
		c   memory.Caller
		key string
	}{{y, "org-a/y/notes.md"}, {ob, "org-b/_org/notes.md"}}
	for _, o := range owners {
		if st, err := p.Ingest(ctx, o.c, o.key, doc("kept", 30), ""); err != nil || st.State != ingest.StateIndexed {
			t.Fatalf("%s: %+v %v", o.key, st, err)
		}
	}
	emb.calls.Store(0)
	emb.hook = func(call int) error {
		if call == 2 {
			return errors.New("embedder went away")
		}
		return nil
	}
	st, err := p.Ingest(ctx, x, "org-a/x/notes.md", doc("lost", 420), "")
	emb.hook = nil
	if err == nil || st.State != ingest.StateFailed {
		t.Fatalf("x's run: %+v %v", st, err)
	}
	for _, tc := range []struct {
		who        memory.Caller
		key, word  string
		wantListed bool
	}{
		{y, "org-a/y/notes.md", "kept", true},
		{x, "org-a/y/notes.md", "kept", false}, // agent vs agent
		{x, "org-a/x/notes.md", "lost", false}, // the failed run
		{ob, "org-b/_org/notes.md", "kept", true},
	} {
		listed, _ := visible(t, b.Service, tc.who, ingest.DocumentID(tc.who.OrgID, tc.key), tc.word)
		if (listed > 0) != tc.wantListed {
			t.Fatalf("%+v sees %d memories of %s", tc.who, listed, tc.key)
		}
	}
	// Searches see their own org's and agent's fragments only.
	for _, who := range []memory.Caller{x, y, ob} {
		hits, err := b.Service.Search(ctx, who, service.SearchRequest{Query: "kept lost", Mode: service.ModeKeyword, K: memory.MaxK})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if h.Memory.OrgID != who.OrgID || (who.AgentID != "" && h.Memory.AgentID != "" && h.Memory.AgentID != who.AgentID) {
				t.Fatalf("%+v found %s of %s/%s", who, h.Memory.ID, h.Memory.OrgID, h.Memory.AgentID)
			}
		}
		if want := who != x; (len(hits) > 0) != want {
			t.Fatalf("%+v: %d hits", who, len(hits))
		}
	}
	for _, org := range []string{"org-a", "org-b"} {
		if n := staged(t, b.Service, org); n != 0 {
			t.Fatalf("%s: %d staged memories left", org, n)
		}
	}
}
