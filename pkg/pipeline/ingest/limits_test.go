package ingest_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
)

// TestS3PathologicalDocuments: a file that would hang or explode the
// loaders fails alone, recorded as failed with the limit it broke, and is
// not retried; the documents beside it are indexed.
func TestS3PathologicalDocuments(t *testing.T) {
	e := setup(t)
	e.pipe.Limits = ingest.Limits{MaxFragments: 20}
	acme := memory.Caller{OrgID: "acme"}
	files := map[string][]byte{
		"acme/_org/cyclic.pdf": ingesttest.CyclicPDF(),
		"acme/_org/bomb.docx":  ingesttest.DOCXBomb(6 << 20), // 22 KB
		"acme/_org/long.md":    []byte(strings.Repeat("Every fragment costs an embedding. ", 400)),
		"acme/_org/fine.txt":   []byte("The office opens at nine."),
		"acme/_org/report.pdf": ingesttest.MakePDF("Quarterly revenue grew."),
	}
	keys := []string{"acme/_org/cyclic.pdf", "acme/_org/bomb.docx", "acme/_org/long.md", "acme/_org/fine.txt", "acme/_org/report.pdf"}
	for _, k := range keys {
		if err := e.blobs.Put(ctx, k, files[k], "application/octet-stream"); err != nil {
			t.Fatal(err)
		}
	}
	outs, err := e.pipe.HandleS3(ctx, event(t, "s3-put.json", keys...), e.fetch)
	if err != nil {
		t.Fatalf("pathological documents must not ask for a retry: %v", err)
	}
	want := []struct{ action, reason string }{
		{"failed", "the page tree is cyclic"},
		{"failed", "times the file's"},
		{"failed", "more than 20 fragments (MaxFragments)"},
		{"indexed", ""},
		{"indexed", ""},
	}
	for i, w := range want {
		o := outs[i]
		if o.Action != w.action || !strings.Contains(o.Reason, w.reason) {
			t.Errorf("%s: %s %q, want %s %q", o.Key, o.Action, o.Reason, w.action, w.reason)
			continue
		}
		st, err := e.pipe.Get(ctx, acme, ingest.DocumentID("acme", o.Key))
		if err != nil || st.State != map[string]string{"failed": ingest.StateFailed, "indexed": ingest.StateIndexed}[w.action] {
			t.Errorf("%s: status %+v %v", o.Key, st, err)
		}
		if n := count(t, e.svc, acme, memory.Filter{DocumentID: st.ID, IncludeArchived: true}); (n == 0) != (w.action == "failed") {
			t.Errorf("%s: %d memories", o.Key, n)
		}
	}
}
