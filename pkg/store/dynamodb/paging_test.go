package dynamodb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/memorytest"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awsdynamodb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go/middleware"
)

// countQueries returns a store over s's table whose client counts its
// Query calls in n.
func countQueries(s *dynamodb.Store, n *atomic.Int64) *dynamodb.Store {
	c := awsdynamodb.New(s.Client().Options(), func(o *awsdynamodb.Options) {
		o.APIOptions = append(o.APIOptions, func(st *middleware.Stack) error {
			return st.Initialize.Add(middleware.InitializeMiddlewareFunc("countQueries",
				func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
					if awsmiddleware.GetOperationName(ctx) == "Query" {
						n.Add(1)
					}
					return next.HandleInitialize(ctx, in)
				}), middleware.After)
		})
	})
	return dynamodb.New(c, s.Table())
}

// TestSparseMatchPagesGrow checks that a filter matching few items of a
// large partition is answered in a number of calls that grows with the
// logarithm of the partition, not linearly: the speaker check (one
// message of an entity, Limit 1) through an entity that only facts are
// about.
func TestSparseMatchPagesGrow(t *testing.T) {
	base := newStore(t)
	const facts = 400
	for i := 0; i < facts; i += memory.MaxBatch {
		var ms []*memory.Memory
		for j := i; j < i+memory.MaxBatch; j++ {
			m := memorytest.New(memorytest.OrgA, "", memory.TypeFact, fmt.Sprintf("Bo owns boat number %d", j), memorytest.Base+int64(j))
			m.EntityID = "Bo"
			ms = append(ms, m)
		}
		if _, err := base.Create(ctx, ms); err != nil {
			t.Fatal(err)
		}
	}
	msg := memorytest.New(memorytest.OrgA, "", memory.TypeMessage, "I sail on Sundays", memorytest.Base-1)
	msg.EntityID = "Bo"
	if _, err := base.Create(ctx, []*memory.Memory{msg}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	s := countQueries(base, &calls)
	cases := []struct {
		name     string
		types    []memory.Type
		want     int
		maxCalls int64
	}{
		// The one message is the oldest: every fact is read past first.
		// 12, 24, 48, 96, 192, 384 items a call reach it in 6 calls; a
		// fixed page of 12 took 34.
		{"one message behind 400 facts", []memory.Type{memory.TypeMessage}, 1, 7},
		{"a filter that matches the first page", []memory.Type{memory.TypeFact}, 1, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			calls.Store(0)
			page, err := s.List(ctx, memory.ListQuery{Filter: memory.Filter{OrgID: memorytest.OrgA, EntityID: "Bo", Types: tc.types}, Limit: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Memories) != tc.want {
				t.Fatalf("got %d memories, want %d", len(page.Memories), tc.want)
			}
			if got := calls.Load(); got > tc.maxCalls {
				t.Errorf("%d Query calls, want at most %d", got, tc.maxCalls)
			}
		})
	}
}
