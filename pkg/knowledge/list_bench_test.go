package knowledge_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/synth"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// BenchmarkKnowledgeListSpeaker measures the knowledge list alone on an
// org of KNOWLEDGE_SIZE (default 20,000) synthetic turns by 50 named
// speakers (the latency benchmark's texts, offline extraction), for the
// same words asked with "someone" and with one speaker's name ("What did
// Speaker7 say about ..."), which keeps what that speaker said
// (retrieval.Query.Speakers, then one more term lookup within the
// speaker's messages). Both begin with "What", a capitalized word looked
// up as a name and found to be none, so the difference is the scoping
// alone. It reports each kind's p50 and p95; building the org is not
// timed.
func BenchmarkKnowledgeListSpeaker(b *testing.B) {
	size := 20_000
	if n, err := strconv.Atoi(os.Getenv("KNOWLEDGE_SIZE")); err == nil && n > 0 {
		size = n
	}
	st, k := offlineKnowledge(b)
	gen := synth.New(7)
	const batch = 500
	for from := 0; from < size; from += batch {
		ms := make([]*memory.Memory, 0, batch)
		for i := from; i < min(size, from+batch); i++ {
			s := gen.Memory(i)
			m := memorytest.New("o", "", memory.TypeMessage, s.Text, s.CreatedAt)
			m.EntityID, m.RoomID = fmt.Sprintf("Speaker%d", i%50), s.RoomID
			ms = append(ms, m)
		}
		if _, err := st.Create(ctx, ms); err != nil {
			b.Fatal(err)
		}
		if err := k.Index(ctx, "o", ms); err != nil {
			b.Fatal(err)
		}
	}
	list := k.Retriever()
	f := memory.Filter{OrgID: "o"}
	var plain, named []time.Duration
	i := 0
	for b.Loop() {
		words := gen.Query()
		for j, text := range []string{"What did someone say about " + words + "?", fmt.Sprintf("What did Speaker%d say about %s?", i%50, words)} {
			t := time.Now()
			if _, err := list.Retrieve(ctx, retrieval.NewQuery(text, f, 50, nil), nil); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				plain = append(plain, time.Since(t))
			} else {
				named = append(named, time.Since(t))
			}
		}
		i++
	}
	b.StopTimer()
	for _, d := range []struct {
		name string
		ds   []time.Duration
	}{{"plain", plain}, {"named", named}} {
		slices.Sort(d.ds)
		b.ReportMetric(float64(d.ds[len(d.ds)/2].Microseconds())/1000, d.name+"-p50-ms")
		b.ReportMetric(float64(d.ds[len(d.ds)*95/100].Microseconds())/1000, d.name+"-p95-ms")
	}
}

// offlineKnowledge opens a SQLite store in a temporary directory, closed
// at cleanup, and the knowledge service over it with the offline
// extractor.
func offlineKnowledge(b testing.TB) (*sqlite.Store, *knowledge.Service) {
	b.Helper()
	st, err := local.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st, &knowledge.Service{Store: st, Terms: st, Extractor: offline.New(offline.Options{})}
}
