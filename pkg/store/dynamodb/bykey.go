package dynamodb

import (
	"context"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

var _ memory.DedupLookup = (*Store)(nil)

// GetByDedupKey implements memory.DedupLookup: the key's dedup claim names
// the memory holding it, read with a second strongly consistent get.
func (s *Store) GetByDedupKey(ctx context.Context, orgID, dedupKey string) (*memory.Memory, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(dedupPK(orgID, dedupKey), skDedup),
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, fmt.Errorf("dynamodb: get by dedup key in %s: %w", orgID, err)
	}
	id := attrS(res.Item, "memoryId")
	if res.Item == nil || attrS(res.Item, "orgId") != orgID || id == "" {
		return nil, memory.Errorf(memory.ENOTFOUND, "no memory holds that key")
	}
	m, err := s.Get(ctx, orgID, id)
	if memory.IsNotFound(err) { // the claim outlived its memory for a moment (a delete in flight)
		return nil, memory.Errorf(memory.ENOTFOUND, "no memory holds that key")
	}
	return m, err
}
