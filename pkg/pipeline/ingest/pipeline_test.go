package ingest_test

import (
	"context"
	"encoding/json"
	"github.com/agentmem/agentmem/pkg/service"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/blob/s3"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

var ctx = context.Background()

type env struct {
	pipe  *ingest.Pipeline
	svc   *service.Service
	blobs *s3.Blobs
	fetch ingest.Fetch
}

func setup(t *testing.T) env {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(128), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	t.Cleanup(srv.Close)
	c, err := s3.NewClient(ctx, s3.ClientOptions{Endpoint: srv.URL, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	blobs := s3.New(c, "agentmem-documents")
	if err := blobs.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	fetch := func(ctx context.Context, bucket, key string) ([]byte, string, error) {
		data, obj, err := blobs.Get(ctx, key)
		return data, obj.ETag, err
	}
	return env{pipe: &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 300, Overlap: 60}, Log: quiet},
		svc: b.Service, blobs: blobs, fetch: fetch}
}

// event loads a sample payload from events/ and points its records at keys.
func event(t *testing.T, file string, keys ...string) events.S3Event {
	t.Helper()
	raw, err := os.ReadFile("../../../events/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.S3Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatal(err)
	}
	tmpl := ev.Records[0]
	ev.Records = nil
	for _, k := range keys {
		r := tmpl
		r.S3.Object.Key = strings.ReplaceAll(k, " ", "+") // as S3 encodes keys
		ev.Records = append(ev.Records, r)
	}
	return ev
}

func count(t *testing.T, svc *service.Service, c memory.Caller, f memory.Filter) int {
	t.Helper()
	n, err := svc.Count(ctx, c, f)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestS3Ingestion(t *testing.T) {
	e := setup(t)
	acme := memory.Caller{OrgID: "acme"}
	long := strings.Repeat("The incident review process starts within 24 hours of an outage. ", 20)
	files := map[string][]byte{
		"acme/_org/reports/q3 report.pdf": ingesttest.MakePDF("Revenue grew eight percent in the third quarter.", "Churn fell to two percent."),
		"acme/_org/policies/leave.docx":   ingesttest.MakeDOCX("Parental leave is sixteen weeks at full pay.", long),
		"acme/_org/runbooks/oncall.md":    []byte("# On-call\n\nPage the secondary after 15 minutes.\n\n" + long),
		"acme/bot/private/notes.txt":      []byte("The escalation phone number is in the vault."),
	}
	var keys []string
	for k, data := range files {
		if err := e.blobs.Put(ctx, k, data, "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	ev := event(t, "s3-put.json", keys...)
	var firstCounts map[string]int
	for delivery := 1; delivery <= 3; delivery++ { // the same event three times
		outs, err := e.pipe.HandleS3(ctx, ev, e.fetch)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, o := range outs {
			if o.Action != "indexed" || o.Status.State != ingest.StateIndexed || o.Status.Fragments == 0 {
				t.Fatalf("delivery %d, %s: %+v", delivery, o.Key, o)
			}
			c, _ := ingest.ParseKey(o.Key)
			counts[o.Key] = count(t, e.svc, c, memory.Filter{DocumentID: o.Status.ID})
			if counts[o.Key] != o.Status.Fragments+1 {
				t.Fatalf("%s: %d memories for %d fragments + the document", o.Key, counts[o.Key], o.Status.Fragments)
			}
		}
		if delivery == 1 {
			firstCounts = counts
		} else if len(counts) != len(firstCounts) {
			t.Fatalf("delivery %d: %v vs %v", delivery, counts, firstCounts)
		} else {
			for k, n := range counts {
				if firstCounts[k] != n {
					t.Fatalf("delivery %d of %s: %d memories, first delivery had %d", delivery, k, n, firstCounts[k])
				}
			}
		}
	}
	// Fragments are searchable, with their offsets and positions.
	res, err := e.svc.Search(ctx, acme, service.SearchRequest{Query: "parental leave weeks", Mode: service.ModeKeyword, Filter: memory.Filter{Types: []memory.Type{memory.TypeFragment}}})
	if err != nil || len(res) == 0 || !strings.Contains(res[0].Memory.Content.Text, "Parental leave") {
		t.Fatalf("search docx: %v %v", res, err)
	}
	var meta struct{ Start, End, Total int }
	json.Unmarshal(res[0].Memory.Metadata, &meta)
	if res[0].Memory.Position == nil || meta.End <= meta.Start || meta.Total < 2 || res[0].Memory.DocumentID == "" {
		t.Fatalf("fragment metadata %s position %v", res[0].Memory.Metadata, res[0].Memory.Position)
	}
	for _, q := range []string{"revenue third quarter", "page the secondary"} {
		if res, _ := e.svc.Search(ctx, acme, service.SearchRequest{Query: q, Mode: service.ModeHybrid}); len(res) == 0 {
			t.Fatalf("%q finds nothing", q)
		}
	}
	// The agent's document is in the agent's scope only.
	if res, _ := e.svc.Search(ctx, memory.Caller{OrgID: "acme", AgentID: "other"}, service.SearchRequest{Query: "escalation phone vault", Mode: service.ModeKeyword}); len(res) != 0 {
		t.Fatalf("agent other sees agent bot's document: %v", res)
	}
	if res, _ := e.svc.Search(ctx, memory.Caller{OrgID: "acme", AgentID: "bot"}, service.SearchRequest{Query: "escalation phone vault", Mode: service.ModeKeyword}); len(res) == 0 {
		t.Fatal("agent bot does not find its own document")
	}
	// Another org sees none of it.
	if res, _ := e.svc.Search(ctx, memory.Caller{OrgID: "globex"}, service.SearchRequest{Query: "parental leave revenue", Mode: service.ModeHybrid}); len(res) != 0 {
		t.Fatalf("globex sees acme's documents: %v", res)
	}

	// An updated object replaces its fragments.
	key := "acme/_org/runbooks/oncall.md"
	e.blobs.Put(ctx, key, []byte("# On-call\n\nRotate the pager every Tuesday at noon."), "text/markdown")
	outs, err := e.pipe.HandleS3(ctx, event(t, "s3-put.json", key), e.fetch)
	if err != nil || outs[0].Status.Fragments != 1 {
		t.Fatalf("update: %+v %v", outs, err)
	}
	docID := outs[0].Status.ID
	if n := count(t, e.svc, acme, memory.Filter{DocumentID: docID}); n != 2 {
		t.Fatalf("after the update the document has %d memories, want 2", n)
	}
	if res, _ := e.svc.Search(ctx, acme, service.SearchRequest{Query: "secondary 15 minutes incident", Mode: service.ModeKeyword, Filter: memory.Filter{DocumentID: docID}}); len(res) != 0 {
		t.Fatalf("the old version is still searchable: %v", res[0].Memory.Content.Text)
	}

	// A delete event removes the document from store and index.
	outs, err = e.pipe.HandleS3(ctx, event(t, "s3-delete.json", key), e.fetch)
	if err != nil || outs[0].Action != "removed" {
		t.Fatalf("delete: %+v %v", outs, err)
	}
	if n := count(t, e.svc, acme, memory.Filter{DocumentID: docID, IncludeArchived: true}); n != 0 {
		t.Fatalf("%d memories left after the delete event", n)
	}
	if res, _ := e.svc.Search(ctx, acme, service.SearchRequest{Query: "rotate the pager Tuesday", Mode: service.ModeHybrid, Filter: memory.Filter{DocumentID: docID}}); len(res) != 0 {
		t.Fatal("the deleted document is still searchable")
	}
	if _, err := e.pipe.Get(ctx, acme, docID); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("status after delete: %v", err)
	}
}

func TestS3IngestionFailures(t *testing.T) {
	e := setup(t)
	acme := memory.Caller{OrgID: "acme"}
	good := ingesttest.MakePDF("Budget approved for the new office.")
	e.blobs.Put(ctx, "acme/_org/broken.pdf", good[:len(good)/3], "application/pdf")
	e.blobs.Put(ctx, "acme/_org/photo.png", []byte{0x89, 'P', 'N', 'G', 1, 2, 3}, "image/png")
	e.blobs.Put(ctx, "acme/_org/empty.txt", []byte("   "), "text/plain")
	e.blobs.Put(ctx, "no-tenant.txt", []byte("who owns this?"), "text/plain")
	e.blobs.Put(ctx, "acme/bad agent!/x.txt", []byte("bad agent id"), "text/plain")
	outs, err := e.pipe.HandleS3(ctx, event(t, "s3-put.json", "acme/_org/broken.pdf", "acme/_org/photo.png",
		"acme/_org/empty.txt", "no-tenant.txt", "acme/bad agent!/x.txt", "acme/_org/never-uploaded.md"), e.fetch)
	if err != nil {
		t.Fatalf("permanent failures must not ask for a retry: %v", err)
	}
	want := []struct{ action, reason string }{
		{"failed", "corrupt PDF"}, {"failed", "unsupported file type"}, {"failed", "empty"},
		{"rejected", "not {orgId}/{agentId or _org}/{path}"}, {"rejected", "not a valid org or agent id"}, {"skipped", "no longer exists"},
	}
	for i, w := range want {
		if outs[i].Action != w.action || !strings.Contains(outs[i].Reason, w.reason) {
			t.Errorf("record %d (%s): %s %q, want %s %q", i, outs[i].Key, outs[i].Action, outs[i].Reason, w.action, w.reason)
		}
	}
	// Failed documents are recorded with their reason and left nothing indexed.
	st, err := e.pipe.Get(ctx, acme, ingest.DocumentID("acme", "acme/_org/broken.pdf"))
	if err != nil || st.State != ingest.StateFailed || !strings.Contains(st.Reason, "corrupt PDF") {
		t.Fatalf("status of the corrupt PDF: %+v %v", st, err)
	}
	if n := count(t, e.svc, acme, memory.Filter{IncludeArchived: true}); n != 0 {
		t.Fatalf("%d memories written by failed documents", n)
	}
	list, _, err := e.pipe.List(ctx, acme, "", 10)
	if err != nil || len(list) != 3 {
		t.Fatalf("status list: %d %v", len(list), err)
	}
}
