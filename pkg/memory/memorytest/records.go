package memorytest

import (
	"context"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// RecordSuite runs the RecordStore contract.
func RecordSuite(t *testing.T, open func(t *testing.T) memory.RecordStore) {
	ctx := context.Background()
	type status struct {
		State     string `json:"state"`
		Fragments int    `json:"fragments"`
	}
	t.Run("batch puts", func(t *testing.T) {
		s := open(t)
		b, ok := s.(memory.RecordBatcher)
		if !ok {
			t.Skip("the record store does not take batches")
		}
		if _, err := s.PutRecord(ctx, OrgA, "VEC", "v1", status{"old", 1}, 0); err != nil {
			t.Fatal(err)
		}
		if err := b.PutRecords(ctx, OrgA, "VEC", []memory.RecordPut{{ID: "v1", Value: status{"a", 1}}, {ID: "v2", Value: status{"b", 2}}}); err != nil {
			t.Fatal(err)
		}
		for id, want := range map[string]struct {
			v int64
			s status
		}{"v1": {2, status{"a", 1}}, "v2": {1, status{"b", 2}}} {
			var got status
			if v, err := s.GetRecord(ctx, OrgA, "VEC", id, &got); err != nil || v != want.v || got != want.s {
				t.Fatalf("%s: %+v version %d %v, want %+v version %d", id, got, v, err, want.s, want.v)
			}
		}
		var got status
		if _, err := s.GetRecord(ctx, OrgB, "VEC", "v2", &got); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("another org sees a batch's record: %v", err)
		}
	})
	t.Run("versions, conditions, org scoping", func(t *testing.T) {
		s := open(t)
		v, err := s.PutRecord(ctx, OrgA, "DOC", "d1", status{"pending", 0}, 0)
		if err != nil || v != 1 {
			t.Fatalf("create: %d %v", v, err)
		}
		if v, err = s.PutRecord(ctx, OrgA, "DOC", "d1", status{"indexed", 12}, 1); err != nil || v != 2 {
			t.Fatalf("conditional update: %d %v", v, err)
		}
		if _, err := s.PutRecord(ctx, OrgA, "DOC", "d1", status{"failed", 0}, 1); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("stale update: %v", err)
		}
		if v, err = s.PutRecord(ctx, OrgA, "DOC", "d1", status{"indexed", 13}, 0); err != nil || v != 3 {
			t.Fatalf("unconditional replace: %d %v", v, err)
		}
		var got status
		if v, err := s.GetRecord(ctx, OrgA, "DOC", "d1", &got); err != nil || v != 3 || got != (status{"indexed", 13}) {
			t.Fatalf("get: %+v %d %v", got, v, err)
		}
		if _, err := s.GetRecord(ctx, OrgB, "DOC", "d1", &got); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("another org's record: %v", err)
		}
		if _, err := s.GetRecord(ctx, OrgA, "JOB", "d1", &got); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("another kind's record: %v", err)
		}
		if err := s.DeleteRecord(ctx, OrgA, "DOC", "d1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.GetRecord(ctx, OrgA, "DOC", "d1", &got); memory.ErrorCode(err) != memory.ENOTFOUND {
			t.Fatalf("after delete: %v", err)
		}
		if err := s.DeleteRecord(ctx, OrgA, "DOC", "d1"); err != nil {
			t.Fatalf("deleting an absent record: %v", err)
		}
	})
	t.Run("create only", func(t *testing.T) {
		s := open(t)
		if v, err := s.PutRecord(ctx, OrgA, "DOC", "c1", status{"first", 1}, memory.RecordCreateOnly); err != nil || v != 1 {
			t.Fatalf("create only, absent: %d %v", v, err)
		}
		if _, err := s.PutRecord(ctx, OrgA, "DOC", "c1", status{"second", 2}, memory.RecordCreateOnly); memory.ErrorCode(err) != memory.ECONFLICT {
			t.Fatalf("create only, present: %v, want %s", err, memory.ECONFLICT)
		}
		var got status
		if v, err := s.GetRecord(ctx, OrgA, "DOC", "c1", &got); err != nil || v != 1 || got != (status{"first", 1}) {
			t.Fatalf("after a refused create: %+v version %d %v", got, v, err)
		}
		if v, err := s.PutRecord(ctx, OrgB, "DOC", "c1", status{"b", 1}, memory.RecordCreateOnly); err != nil || v != 1 {
			t.Fatalf("create only in another org: %d %v", v, err)
		}
		if err := s.DeleteRecord(ctx, OrgA, "DOC", "c1"); err != nil {
			t.Fatal(err)
		}
		if v, err := s.PutRecord(ctx, OrgA, "DOC", "c1", status{"again", 3}, memory.RecordCreateOnly); err != nil || v != 1 {
			t.Fatalf("create only after a delete: %d %v", v, err)
		}
	})
	t.Run("list pages in id order", func(t *testing.T) {
		s := open(t)
		for i := 0; i < 25; i++ {
			if _, err := s.PutRecord(ctx, OrgA, "DOC", fmt.Sprintf("doc-%02d", i), status{"indexed", i}, 0); err != nil {
				t.Fatal(err)
			}
		}
		s.PutRecord(ctx, OrgB, "DOC", "doc-99", status{}, 0)
		s.PutRecord(ctx, OrgA, "JOB", "doc-98", status{}, 0)
		var ids []string
		after := ""
		for pages := 0; pages < 10; pages++ {
			recs, next, err := s.ListRecords(ctx, OrgA, "DOC", after, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				ids = append(ids, r.ID)
				if r.Kind != "DOC" || r.Version != 1 || len(r.Value) == 0 {
					t.Fatalf("record %+v", r)
				}
			}
			if next == "" {
				break
			}
			after = next
		}
		if len(ids) != 25 || ids[0] != "doc-00" || ids[24] != "doc-24" {
			t.Fatalf("listed %d: %v", len(ids), ids)
		}
	})
}
