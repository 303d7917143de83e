package opensearch_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/index/opensearch"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkKeywordScoring measures keyword search on one org of 10,000
// synthetic memories (KEYWORD_SIZE to change) spread over agents and
// rooms, scored with the reader's statistics (three round trips) and with
// OpenSearch's BM25 (one, as a schema 2 index does), for the admin view
// and an agent key acting for a room; it reports p50 and p95.
func BenchmarkKeywordScoring(b *testing.B) {
	size := 10_000
	if v, err := strconv.Atoi(os.Getenv("KEYWORD_SIZE")); err == nil && v > 0 {
		size = v
	}
	ix, err := opensearch.New(opensearch.Config{URLs: []string{testenv.Get(b, "OPENSEARCH_URL")}, Alias: randomName("bench"), Dimensions: 64})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ix.Ensure(ctx); err != nil {
		b.Fatal(err)
	}
	defer ix.DeleteAll(ctx)
	g := synth.New(1)
	batch := make([]*memory.Memory, 0, 500)
	for i := range size {
		m := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, g.Memory(i).Text, memorytest.Base+int64(i))
		m.Embedding = nil
		switch i % 4 {
		case 1, 2:
			m.AgentID, m.Visibility = fmt.Sprintf("agent-%d", i%4), memory.VisibilityAgent
		case 3:
			m.RoomID, m.Visibility = fmt.Sprintf("room-%d", i%50), memory.VisibilityRoom
		}
		batch = append(batch, m)
		if len(batch) == cap(batch) || i == size-1 {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if err := ix.Refresh(ctx); err != nil {
		b.Fatal(err)
	}
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = g.Query()
	}
	for _, exact := range []bool{true, false} {
		for _, r := range []struct {
			name string
			f    memory.Filter
		}{
			{"admin", memory.Filter{OrgID: memorytest.OrgA}},
			{"agent-acting", memory.Filter{OrgID: memorytest.OrgA, Viewer: "agent-1", Audiences: []string{memory.RoomAudience("room-3")}}},
		} {
			name := "reader-stats/" + r.name
			if !exact {
				name = "opensearch-bm25/" + r.name
			}
			b.Run(name, func(b *testing.B) {
				opensearch.SetExact(ix, exact)
				defer opensearch.SetExact(ix, true)
				var lat []time.Duration
				i := 0
				for b.Loop() {
					t := time.Now()
					if _, err := ix.Search(ctx, memory.IndexQuery{Filter: r.f, Text: queries[i%len(queries)], K: 10}); err != nil {
						b.Fatal(err)
					}
					lat = append(lat, time.Since(t))
					i++
				}
				slices.Sort(lat)
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
				b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
			})
		}
	}
}
