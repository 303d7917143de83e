package dynamodb_test

import (
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
)

// BenchmarkStore measures the store's operations on the DynamoDB it is
// pointed at (DynamoDB Local in make test's setup): go test -bench . ./pkg/dynamodb
func BenchmarkStore(b *testing.B) {
	s := newStoreB(b)
	corpus := memorytest.Corpus(memorytest.OrgA, 1000)
	for start := 0; start < len(corpus); start += 100 {
		if _, err := s.Create(ctx, corpus[start:start+100]); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("create batch of 100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			batch := make([]*memory.Memory, 100)
			for j := range batch {
				batch[j] = memorytest.New(memorytest.OrgB, "", memory.TypeCustom, fmt.Sprintf("bench %d %d", i, j), memorytest.Base)
			}
			if _, err := s.Create(ctx, batch); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Get(ctx, memorytest.OrgA, corpus[i%len(corpus)].ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("get many 10", func(b *testing.B) {
		ids := make([]string, 10)
		for i := 0; i < b.N; i++ {
			for j := range ids {
				ids[j] = corpus[(i*10+j)%len(corpus)].ID
			}
			if _, err := s.GetMany(ctx, memorytest.OrgA, ids); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("list room page of 50", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: memorytest.OrgA, RoomID: "room-1"}, Limit: 50}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		m, _ := s.Get(ctx, memorytest.OrgA, corpus[0].ID)
		for i := 0; i < b.N; i++ {
			m.Importance = float64(i%10) / 10
			if err := s.Update(ctx, m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("touch 10", func(b *testing.B) {
		ids := make([]string, 10)
		for j := range ids {
			ids[j] = corpus[j].ID
		}
		for i := 0; i < b.N; i++ {
			if err := s.Touch(ctx, memorytest.OrgA, ids, int64(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("count org", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Count(ctx, memory.Filter{OrgID: memorytest.OrgA}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
