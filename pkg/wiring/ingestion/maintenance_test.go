package ingestion_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/blob/s3"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// TestScheduledMaintenanceOnDynamoDB runs the ingest function's handler,
// built as functions/ingest builds it, on DynamoDB Local and an
// S3-compatible server: S3 notifications index documents of two orgs and
// two agents, then crashed and in-flight runs are left behind, and the
// scheduled EventBridge event rolls back only the crashed one (its staged
// fragments gone, the previous version still the visible one) and retries
// pending knowledge. Nothing of another org, or of a run in flight, is
// touched, and a second pass finds nothing to do.
func TestScheduledMaintenanceOnDynamoDB(t *testing.T) {
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	var suffix [4]byte
	rand.Read(suffix[:])
	env := map[string]string{"BACKEND": "aws", "DYNAMODB_ENDPOINT": ep, "DYNAMODB_CREATE_TABLE": "true",
		"DYNAMODB_TABLE": "maintenance-" + hex.EncodeToString(suffix[:]), "DATA_DIR": t.TempDir(),
		"INGEST_CHUNK_SIZE": "200", "INGEST_CHUNK_OVERLAP": "20"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	emb := hashing.New(128)
	b, err := server.OpenWith(ctx, cfg, emb, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	docs := b.Documents
	if docs.Commits == nil {
		t.Fatal("the pipeline on DynamoDB does not settle interrupted commits")
	}
	k := wiring.NewKnowledge(b.Store, emb, quiet)
	maint, err := ingestion.Maintenance(docs, b.Caps, k, 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ingestion.Maintenance(docs, wiring.Capabilities{Store: "bare", Records: b.Caps.Records}, nil, time.Minute); err == nil ||
		!strings.Contains(err.Error(), "org listing") {
		t.Fatalf("a store without an org list: %v", err)
	}

	// The bucket, on an S3-compatible server on loopback.
	srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer srv.Close()
	c, err := s3.NewClient(ctx, s3.ClientOptions{Endpoint: srv.URL, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	const bucket = "documents"
	blobs := s3.New(c, bucket)
	if err := blobs.CreateBucket(ctx); err != nil {
		t.Fatal(err)
	}
	fetch := func(ctx context.Context, bucket, key string) ([]byte, string, error) {
		data, obj, err := s3.New(c, bucket).Get(ctx, key)
		return data, obj.ETag, err
	}
	handle := ingest.Handler(docs, fetch, maint)
	invoke := func(event string) ingest.InvocationResult {
		t.Helper()
		var in ingest.Invocation
		if err := json.Unmarshal([]byte(event), &in); err != nil {
			t.Fatalf("decode %s: %v", event, err)
		}
		res, err := handle(ctx, in)
		if err != nil {
			t.Fatalf("invoke: %+v %v", res, err)
		}
		return res
	}

	keys := []string{"org-a/_org/handbook.md", "org-b/_org/handbook.md", "org-a/agent-x/notes.md"}
	var records []string
	for _, key := range keys {
		text := strings.Repeat(fmt.Sprintf("%s says the office opens at nine and closes at six. ", key), 12)
		if err := blobs.Put(ctx, key, []byte(text), "text/markdown"); err != nil {
			t.Fatal(err)
		}
		records = append(records, fmt.Sprintf(`{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":%q},"object":{"key":%q}}}`, bucket, key))
	}
	res := invoke(`{"Records":[` + strings.Join(records, ",") + `]}`)
	if len(res.Outcomes) != len(keys) || res.Maintenance != nil {
		t.Fatalf("s3 notification: %+v", res)
	}
	for _, o := range res.Outcomes {
		if o.Action != "indexed" || o.Status.Fragments < 2 {
			t.Fatalf("%s: %+v", o.Key, o)
		}
	}
	orgA, orgB := memory.Caller{OrgID: "org-a"}, memory.Caller{OrgID: "org-b"}
	handbookA, handbookB := ingest.DocumentID("org-a", keys[0]), ingest.DocumentID("org-b", keys[1])
	notes := ingest.DocumentID("org-a", keys[2])
	visible := func(c memory.Caller, doc string) []string {
		t.Helper()
		p, err := b.Service.List(ctx, c, memory.Filter{DocumentID: doc}, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range p.Memories {
			ids = append(ids, m.ID)
		}
		return ids
	}
	staged := func(org, doc string) int {
		t.Helper()
		n, err := b.Store.Count(ctx, memory.Filter{OrgID: org, DocumentID: doc, Pending: true, IncludeArchived: true})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	beforeA, beforeB := visible(orgA, handbookA), visible(orgB, handbookB)
	if len(beforeA) == 0 || len(beforeB) == 0 {
		t.Fatal("nothing indexed")
	}

	// Left behind: a crashed run of a new version of org a's handbook (an
	// hour old), and a run of org b's handbook still in flight.
	stage := func(c memory.Caller, key string, started time.Time, n int) {
		t.Helper()
		id := ingest.DocumentID(c.OrgID, key)
		st := ingest.Status{ID: id, OrgID: c.OrgID, Key: key, Name: key, State: ingest.StatePending, StartedAt: started.UnixMilli()}
		if _, err := b.Caps.Records.PutRecord(ctx, c.OrgID, ingest.RecordKind, id, st, 0); err != nil {
			t.Fatal(err)
		}
		var in []service.NewMemory
		for i := range n {
			pos := i
			in = append(in, service.NewMemory{Scope: "org", Type: memory.TypeFragment, DocumentID: id, Position: &pos,
				Content: memory.Content{Text: fmt.Sprintf("unpublished version, fragment %d of %s", i, key), Source: key}})
		}
		if _, err := b.Service.Pipelines().Stage(ctx, c, in); err != nil {
			t.Fatal(err)
		}
	}
	stage(orgA, keys[0], time.Now().Add(-time.Hour), 3)
	stage(orgB, keys[1], time.Now(), 2)
	if got := visible(orgA, handbookA); len(got) != len(beforeA) {
		t.Fatalf("staged fragments are visible before any commit: %d, was %d", len(got), len(beforeA))
	}
	hits, err := b.Service.Search(ctx, orgA, service.SearchRequest{Query: "unpublished version fragment", K: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 {
		t.Fatal("the search found nothing at all: it would not show a leak either")
	}
	for _, h := range hits {
		if strings.Contains(h.Memory.Content.Text, "unpublished") {
			t.Fatalf("a staged fragment is searchable: %q", h.Memory.Content.Text)
		}
	}
	// Knowledge left pending in org b.
	terms := b.Store.(memory.TermIndex)
	if err := terms.MarkKnowledgePending(ctx, "org-b", beforeB[:1]); err != nil {
		t.Fatal(err)
	}

	res = invoke(`{"version":"0","id":"e-1","detail-type":"Scheduled Event","source":"aws.events","account":"123456789012",
		"time":"2026-11-22T07:00:00Z","region":"us-east-1","resources":["arn:aws:events:us-east-1:123456789012:rule/agentmem-dev-ingest-maintenance"],"detail":{}}`)
	rep := res.Maintenance
	if rep == nil || res.Outcomes != nil {
		t.Fatalf("scheduled event: %+v", res)
	}
	if rep.Orgs != 2 || rep.Recovered.Documents != 1 || rep.Recovered.Memories != 3 || rep.KnowledgeRetried < 1 || len(rep.Failed) != 0 {
		t.Fatalf("first pass: %+v", rep)
	}
	var st ingest.Status
	if _, err := b.Caps.Records.GetRecord(ctx, "org-a", ingest.RecordKind, handbookA, &st); err != nil ||
		st.State != ingest.StateFailed || st.Reason != ingest.Interrupted {
		t.Fatalf("the crashed run's status: %+v %v", st, err)
	}
	if n := staged("org-a", handbookA); n != 0 {
		t.Fatalf("%d staged fragments of the crashed run remain", n)
	}
	if got := visible(orgA, handbookA); len(got) != len(beforeA) {
		t.Fatalf("the previous version: %d fragments visible, was %d", len(got), len(beforeA))
	}
	// The run in flight, in another org, is left alone.
	if n := staged("org-b", handbookB); n != 2 {
		t.Fatalf("the run in flight lost its staged fragments: %d left", n)
	}
	if _, err := b.Caps.Records.GetRecord(ctx, "org-b", ingest.RecordKind, handbookB, &st); err != nil || st.State != ingest.StatePending {
		t.Fatalf("the run in flight's status: %+v %v", st, err)
	}
	if ks, err := terms.KnowledgeStatus(ctx, "org-b", beforeB[:1]); err != nil || ks[beforeB[0]].State != memory.KnowledgeDone {
		t.Fatalf("pending knowledge not retried: %+v %v", ks, err)
	}
	// Agent x's document: its own, and the org's admin, see it; agent y does not.
	for _, tc := range []struct {
		c    memory.Caller
		sees bool
	}{
		{memory.Caller{OrgID: "org-a", AgentID: "agent-x"}, true},
		{memory.Caller{OrgID: "org-a", AgentID: "agent-y"}, false},
		{orgB, false},
	} {
		if got := visible(tc.c, notes); (len(got) > 0) != tc.sees {
			t.Errorf("%+v sees %d fragments of agent x's document", tc.c, len(got))
		}
	}

	res = invoke(`{"version":"0","id":"e-2","detail-type":"Scheduled Event","source":"aws.events","detail":{}}`)
	if rep := res.Maintenance; rep == nil || rep.Recovered != (ingest.Recovered{}) || len(rep.Failed) != 0 {
		t.Fatalf("second pass: %+v", res.Maintenance)
	}
}
