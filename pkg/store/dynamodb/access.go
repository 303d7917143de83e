package dynamodb

import (
	"context"
	"errors"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Accesses are counted in an item of their own beside each memory item
// (same partition, sort key ACCESS): a few dozen bytes holding the count and
// the last access time, in no index. Recording an access to a memory is
// then one write unit, where updating the memory item rewrote its whole
// body and vector (about 5 KB with a 1,024-dimension vector) in the table
// and in every global secondary index that holds it: about 25 write units.
//
// A memory's AccessCount is its item's accessCount plus its access item's,
// and its LastAccessedAt the later of the two: the memory item keeps what
// was counted on it before access items existed (a table written by an
// earlier version needs no migration) or what an import brought, and its
// writes (Update) carry that base over unchanged, never the merged sum.
// Deleting a memory deletes its access item in the same transaction.
const skAccess = "ACCESS"

// access is a memory's counters from its access item.
type access struct{ count, at int64 }

func accessKey(org, id string) map[string]types.AttributeValue {
	return key(memPK(org, id), skAccess)
}

// Touch implements memory.Store: one small update per memory, of its access
// item, eight at a time; an id listed n times adds n in one update. An id
// that names no memory of the org leaves an access item no read joins (the
// key holds the org, so no other org's memory can be counted); the memory
// item is not read, which is the point.
//
// The time is set only if it is no earlier than the item's (a condition), so a
// batch written after a newer one, by another process, keeps the newer
// time; such a batch's count is then added by a second update without the
// time (two write units, only for those out-of-order batches).
func (s *Store) Touch(ctx context.Context, orgID string, ids []string, at int64) error {
	distinct, counts := memory.CountAccesses(ids)
	var wg sync.WaitGroup
	errs := make([]error, len(distinct))
	sem := make(chan struct{}, 8)
	for i, id := range distinct {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, id string) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = s.touchOne(ctx, orgID, id, counts[id], at)
		}(i, id)
	}
	wg.Wait()
	return errors.Join(errs...)
}

// touchOne adds n accesses to the access item of memory id, and sets its
// time to at unless the item holds a later one.
func (s *Store) touchOne(ctx context.Context, orgID, id string, n, at int64) error {
	_, err := s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: accessKey(orgID, id),
		UpdateExpression:          aws.String("ADD accessCount :n SET lastAccessedAt = :at"),
		ConditionExpression:       aws.String("attribute_not_exists(lastAccessedAt) OR lastAccessedAt <= :at"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(n), ":at": num(at)},
	})
	var ccf *types.ConditionalCheckFailedException
	if !errors.As(err, &ccf) {
		return err
	}
	_, err = s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName: aws.String(s.table), Key: accessKey(orgID, id),
		UpdateExpression:          aws.String("ADD accessCount :n"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":n": num(n)},
	})
	return err
}

// withAccessKeys returns the keys of the memories ids of org followed by
// those of their access items: one batch read gets both.
func withAccessKeys(org string, ids []string) []map[string]types.AttributeValue {
	keys := make([]map[string]types.AttributeValue, 0, 2*len(ids))
	for _, id := range ids {
		keys = append(keys, key(memPK(org, id), skMemory))
	}
	for _, id := range ids {
		keys = append(keys, accessKey(org, id))
	}
	return keys
}

// splitAccess separates the access items from the memory items of a batch
// read, indexing the counters by memory partition key.
func splitAccess(items []map[string]types.AttributeValue) (mems []map[string]types.AttributeValue, acc map[string]access) {
	acc = map[string]access{}
	for _, it := range items {
		if attrS(it, "SK") == skAccess {
			acc[attrS(it, "PK")] = access{attrN(it, "accessCount"), attrN(it, "lastAccessedAt")}
		} else {
			mems = append(mems, it)
		}
	}
	return mems, acc
}

// accesses reads the access items of the memory items its (eventually
// consistent, half a read unit each).
func (s *Store) accesses(ctx context.Context, its []map[string]types.AttributeValue) (map[string]access, error) {
	if len(its) == 0 {
		return nil, nil
	}
	keys := make([]map[string]types.AttributeValue, len(its))
	for i, it := range its {
		keys[i] = key(attrS(it, "PK"), skAccess)
	}
	items, err := s.batchGet(ctx, keys, false)
	if err != nil {
		return nil, err
	}
	_, acc := splitAccess(items)
	return acc, nil
}

// addAccess merges a memory item's counters with its access item's, into a
// copy of it.
func addAccess(it map[string]types.AttributeValue, acc map[string]access) map[string]types.AttributeValue {
	a, ok := acc[attrS(it, "PK")]
	if !ok {
		return it
	}
	out := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		out[k] = v
	}
	out["accessCount"] = num(attrN(it, "accessCount") + a.count)
	out["lastAccessedAt"] = num(max(attrN(it, "lastAccessedAt"), a.at))
	return out
}
