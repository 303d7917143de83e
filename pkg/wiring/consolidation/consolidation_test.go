package consolidation_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestNew: the job is refused at start unless the store keeps records and
// lists its orgs, naming what is missing; on the embedded backend it runs
// every org and keeps its report in the records.
func TestNew(t *testing.T) {
	ctx := context.Background()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		name    string
		caps    wiring.Capabilities
		missing string
	}{
		{"no records", wiring.Capabilities{Orgs: b.Store}, "records (memory.RecordStore)"},
		{"no org listing", wiring.Capabilities{Records: b.Store}, "org listing (memory.OrgLister)"},
		{"neither", wiring.Capabilities{}, "records (memory.RecordStore) and org listing (memory.OrgLister)"},
	} {
		_, err := consolidation.New(b.Service, tc.caps, config.Consolidation{}, nil)
		if err == nil || !strings.Contains(err.Error(), "consolidation needs a store that keeps "+tc.missing) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}

	job, err := consolidation.New(b.Service, b.Caps, config.Consolidation{HalfLifeStandard: time.Hour, ArchiveBelow: 0.2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if job.Config.HalfLifeStandard != time.Hour || job.Config.ArchiveBelow != 0.2 {
		t.Fatalf("policy not taken from the configuration: %+v", job.Config)
	}
	for _, org := range []string{"acme", "globex"} {
		if _, err := b.Service.Create(ctx, memory.Caller{OrgID: org}, []service.NewMemory{{Content: memory.Content{Text: "kept by " + org}}}); err != nil {
			t.Fatal(err)
		}
	}
	reps, err := job.RunAll(ctx)
	if err != nil || len(reps) != 2 {
		t.Fatalf("run all: %+v %v", reps, err)
	}
	if last, err := job.Last(ctx, "globex"); err != nil || last.Scanned != 1 {
		t.Fatalf("last report from the records: %+v %v", last, err)
	}
}
