package knowledge_test

import (
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkPrefetch measures POST /v1/knowledge/prefetch's use case on an
// org of PREFETCH_SIZE (default 100,000) synthetic turns (the latency
// benchmark's texts, offline extraction): two complete words and the
// first one to three letters of a third, as typed. It reports p50 and
// p95; building the org is not timed.
//
//	go test -run '^$' -bench Prefetch -benchtime 1000x ./pkg/knowledge/
func BenchmarkPrefetch(b *testing.B) {
	size := 100_000
	if n, err := strconv.Atoi(os.Getenv("PREFETCH_SIZE")); err == nil && n > 0 {
		size = n
	}
	st, k := offlineKnowledge(b)
	gen := synth.New(7)
	const batch = 1000
	for from := 0; from < size; from += batch {
		ms := make([]*memory.Memory, 0, batch)
		for i := from; i < min(size, from+batch); i++ {
			s := gen.Memory(i)
			m := memorytest.New("o", "", memory.TypeMessage, s.Text, s.CreatedAt)
			m.RoomID = s.RoomID
			ms = append(ms, m)
		}
		if _, err := st.Create(ctx, ms); err != nil {
			b.Fatal(err)
		}
		if err := k.Index(ctx, "o", ms); err != nil {
			b.Fatal(err)
		}
	}
	x := &knowledge.Explorer{Index: st, Store: st}
	c := memory.Caller{OrgID: "o"}
	var ds []time.Duration
	i := 0
	for b.Loop() {
		w := gen.Word()
		text := "what was " + gen.Word() + " " + gen.Word() + " " + w[:min(len(w), 1+i%3)]
		t := time.Now()
		if _, err := x.Prefetch(ctx, c, knowledge.PrefetchRequest{Text: text}); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t))
		i++
	}
	b.StopTimer()
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(ds[len(ds)*95/100].Microseconds())/1000, "p95-ms")
}
