package ingestion_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestNew: without records the pipeline is refused at start, naming itself
// and the capability; on the embedded backend it ingests a document and
// keeps its status in the store's records.
func TestNew(t *testing.T) {
	_, err := ingestion.New(nil, wiring.Capabilities{Store: "bare"}, config.Ingest{}, nil)
	if err == nil || !strings.Contains(err.Error(), "document ingestion needs a store that keeps records (memory.RecordStore)") {
		t.Fatalf("no records: %v", err)
	}

	ctx := context.Background()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := ingestion.New(b.Service, b.Caps, config.Ingest{MaxBytes: 1 << 20, ChunkSize: 60, ChunkOverlap: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := memory.Caller{OrgID: "acme"}
	text := strings.Repeat("The office opens at nine and closes at six on weekdays. ", 4)
	st, err := p.Ingest(ctx, c, "acme/_org/hours.md", []byte(text), "")
	if err != nil || st.State != ingest.StateIndexed || st.Fragments < 2 {
		t.Fatalf("ingest with the configured fragment size: %+v %v", st, err)
	}
	got, err := p.Get(ctx, c, st.ID)
	if err != nil || got.State != ingest.StateIndexed || got.Fragments != st.Fragments {
		t.Fatalf("status from the store's records: %+v %v", got, err)
	}
}
