package bolt_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkKeywordVisibility measures keyword search (MaxScore) on one org
// of 100,000 of BenchmarkKeyword's texts (KEYWORD_SIZE to change) spread
// over visibilities: a quarter shared, a quarter each of two agents', an
// eighth in 50 rooms and an eighth of 5,000 end users; and reports p50 and p95 for four readers: the admin
// view, an agent key, an agent key acting for a room and a user, and an
// org key acting for them.
func BenchmarkKeywordVisibility(b *testing.B) {
	ctx := context.Background()
	ix, _, err := bolt.Open(b.TempDir(), model, 384)
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	g := synth.New(1)
	size := benchSize()
	batch := make([]*memory.Memory, 0, 1000)
	for i := range size {
		m := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, g.Memory(i).Text, memorytest.Base+int64(i))
		m.Embedding = nil
		switch i % 4 {
		case 0:
			m.Visibility = memory.VisibilityShared
		case 1, 2:
			m.AgentID, m.Visibility = fmt.Sprintf("agent-%d", i%4), memory.VisibilityAgent
		case 3:
			if i%8 == 3 {
				m.RoomID, m.Visibility = fmt.Sprintf("room-%d", i%50), memory.VisibilityRoom
			} else {
				m.UserID, m.Visibility = fmt.Sprintf("user-%d", i%5000), memory.VisibilityUser
			}
		}
		batch = append(batch, m)
		if len(batch) == cap(batch) {
			if err := ix.Upsert(ctx, batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = g.Query()
	}
	acting := []string{memory.RoomAudience("room-3"), memory.UserAudience("user-7")}
	for _, r := range []struct {
		name string
		f    memory.Filter
	}{
		{"admin", memory.Filter{OrgID: memorytest.OrgA}},
		{"agent", memory.Filter{OrgID: memorytest.OrgA, Viewer: "agent-1"}},
		{"agent-acting", memory.Filter{OrgID: memorytest.OrgA, Viewer: "agent-1", Audiences: acting}},
		{"org-acting", memory.Filter{OrgID: memorytest.OrgA, Audiences: acting}},
	} {
		b.Run(r.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, 1<<16)
			hits, i := 0, 0
			for b.Loop() {
				q := memory.IndexQuery{Filter: r.f, Text: queries[i%len(queries)], K: benchK()}
				i++
				t := time.Now()
				res, err := ix.Search(ctx, q)
				lat = append(lat, time.Since(t))
				if err != nil {
					b.Fatal(err)
				}
				hits += len(res.Keyword)
			}
			if hits == 0 {
				b.Fatal("no query found anything")
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds()), "p95-µs")
		})
	}
}
