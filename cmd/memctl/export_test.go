package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestExportImport moves an org from one embedded deployment to another
// and runs the import twice.
func TestExportImport(t *testing.T) {
	ctx := context.Background()
	open := func() *local.Backend {
		b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { b.Close() })
		return b
	}
	src, dst := open(), open()
	acme := memory.Caller{OrgID: "acme"}
	if _, err := src.Service.Create(ctx, acme, []service.NewMemory{
		{Content: memory.Content{Text: "Ana loves fencing"}, Metadata: []byte(`{"team":"red"}`)},
		{Content: memory.Content{Text: "Bo climbs in Lisbon"}, AgentID: "bot"},
	}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := exportTo(ctx, src.Service, acme, service.ExportOptions{Embeddings: true}, &buf); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"kind":"memory"`); n != 2 {
		t.Fatalf("exported %d memories:\n%s", n, buf.String())
	}
	for run, want := range []service.ImportCounts{{Created: 2}, {Existing: 2}} {
		rep, err := importFrom(ctx, dst.Service, acme, bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if rep.Memories != want || len(rep.Errors) != 0 {
			t.Fatalf("import %d: %+v, want %+v", run+1, rep, want)
		}
	}
	n, err := dst.Service.Count(ctx, acme, memory.Filter{Metadata: memory.MetadataFilter{"team": {"red"}}})
	if err != nil || n != 1 {
		t.Fatalf("imported memories with team=red: %d %v", n, err)
	}
}
