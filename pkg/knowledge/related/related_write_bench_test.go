package related_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/knowledge/related"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// remoteEmbedder is the hashing embedder behind a fixed delay per call, as
// a remote embedder (one request per batch) answers.
type remoteEmbedder struct {
	*hashing.Embedder
	delay time.Duration
}

func (e remoteEmbedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	time.Sleep(e.delay)
	return e.Embedder.Embed(ctx, texts, p)
}

// BenchmarkLookupAfterWrite measures a related-terms lookup right after
// each write of a turn with new words, in an org of 2,000 turns, with an
// embedder that takes RELATED_EMBED_DELAY (default 20ms) a call: the
// pattern of an agent that writes a turn and then searches. It reports
// the lookups' p50 and p95 and the writes' p95.
func BenchmarkLookupAfterWrite(b *testing.B) {
	delay := 20 * time.Millisecond
	if d, err := time.ParseDuration(os.Getenv("RELATED_EMBED_DELAY")); err == nil {
		delay = d
	}
	st, k := offlineKnowledge(b)
	var ms []*memory.Memory
	for i := range 2000 {
		ms = append(ms, memorytest.New("o", "", memory.TypeMessage,
			fmt.Sprintf("Turn %d: we talked about topic%d and project%d over lunch", i, i%300, i%70), memorytest.Base+int64(i)))
	}
	if _, err := st.Create(ctx, ms); err != nil {
		b.Fatal(err)
	}
	if err := k.Index(ctx, "o", ms); err != nil {
		b.Fatal(err)
	}
	rel := &related.Index{Terms: st, Embedder: remoteEmbedder{hashing.New(384), delay}, Records: st}
	k.Related = rel
	if _, err := rel.Expand(ctx, "o", []string{"lunch"}); err != nil { // the first build
		b.Fatal(err)
	}
	var lookups, writes []time.Duration
	i := 0
	for b.Loop() {
		m := memorytest.New("o", "", memory.TypeMessage,
			fmt.Sprintf("Later we met %s and %s at the market", letters("nova", i), letters("idea", i)), memorytest.Base+int64(10_000+i))
		i++
		t := time.Now()
		if _, err := st.Create(ctx, []*memory.Memory{m}); err != nil {
			b.Fatal(err)
		}
		if err := k.Index(ctx, "o", []*memory.Memory{m}); err != nil {
			b.Fatal(err)
		}
		writes = append(writes, time.Since(t))
		t = time.Now()
		if _, err := rel.Expand(ctx, "o", []string{"lunch", "market"}); err != nil {
			b.Fatal(err)
		}
		lookups = append(lookups, time.Since(t))
	}
	b.StopTimer()
	rel.Wait()
	slices.Sort(lookups)
	slices.Sort(writes)
	b.ReportMetric(float64(lookups[len(lookups)/2].Microseconds())/1000, "lookup-p50-ms")
	b.ReportMetric(float64(lookups[len(lookups)*95/100].Microseconds())/1000, "lookup-p95-ms")
	b.ReportMetric(float64(writes[len(writes)*95/100].Microseconds())/1000, "write-p95-ms")
}

// letters is prefix followed by n written in letters (vocabulary terms
// with digits take no part in related terms).
func letters(prefix string, n int) string {
	b := []byte(prefix)
	for {
		b = append(b, byte('a'+n%26))
		if n /= 26; n == 0 {
			return string(b)
		}
	}
}
