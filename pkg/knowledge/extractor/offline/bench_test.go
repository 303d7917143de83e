package offline

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// chatTurns are hand-written turns of the length and style of chat
// messages, for the throughput benchmark.
var chatTurns = []string{
	"Hey Ana! Good to hear from you. I've been so busy with work and the kids lately, how about you?",
	"I finally adopted a puppy last weekend! She's a golden retriever and her name is Luna.",
	"That's amazing! We went camping at Lake Tahoe last summer and my son caught his first fish.",
	"I'm reading The Name of the Wind right now, it's my favorite fantasy book so far.",
	"My sister Maria just moved to Lisbon for a new job at a design studio.",
	"I didn't expect the marathon to be that hard, but I finished 42 km in 4 hours!",
	"We're planning a trip to Japan next spring. Have you ever been to Kyoto?",
	"Honestly I can't stand cold weather, so I'll probably spend the winter in Florida with my parents.",
	"Thanks! I started taking pottery classes in May and I love how relaxing it is.",
	"My dad is 70 and he still plays tennis every Sunday with his friends from church.",
}

func BenchmarkExtract(b *testing.B) {
	srcs := make([]memory.KnowledgeSource, len(chatTurns))
	bytes := 0
	for i, t := range chatTurns {
		srcs[i] = memory.KnowledgeSource{Text: t, Speaker: "Sam", Listeners: []string{"Ana"}}
		bytes += len(t)
	}
	x := New(Options{})
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := x.Extract(context.Background(), srcs); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(srcs))/b.Elapsed().Seconds(), "msg/s")
}
