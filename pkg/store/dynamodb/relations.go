package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

var _ memory.RelationStore = (*Store)(nil)

// A relation is two items, one in each memory's item collection:
// REL#<type>#<to> under the source and RREL#<type>#<from> under the target,
// so a memory's relations in both directions are one query.
func relItems(r memory.Relation) ([2]map[string]types.AttributeValue, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return [2]map[string]types.AttributeValue{}, fmt.Errorf("dynamodb: encode relation %s: %w", r.FromID, err)
	}
	mk := func(pk, sk string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": str(pk), "SK": str(sk), "orgId": str(r.OrgID), "body": str(string(body))}
	}
	return [2]map[string]types.AttributeValue{
		mk(memPK(r.OrgID, r.FromID), "REL#"+string(r.Type)+"#"+r.ToID),
		mk(memPK(r.OrgID, r.ToID), "RREL#"+string(r.Type)+"#"+r.FromID),
	}, nil
}

// PutRelations implements memory.RelationStore.
func (s *Store) PutRelations(ctx context.Context, rs []memory.Relation) error {
	var reqs []types.WriteRequest
	for _, r := range rs {
		if err := r.Validate(); err != nil {
			return err
		}
		items, err := relItems(r)
		if err != nil {
			return err
		}
		for _, it := range items {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
		}
	}
	return s.batchWrite(ctx, reqs)
}

// batchWrite writes 25 requests at a time, retrying unprocessed items.
func (s *Store) batchWrite(ctx context.Context, reqs []types.WriteRequest) error {
	for start := 0; start < len(reqs); start += 25 {
		pending := map[string][]types.WriteRequest{s.table: reqs[start:min(len(reqs), start+25)]}
		for attempt := 0; len(pending) > 0; attempt++ {
			if attempt > 0 {
				if err := sleep(ctx, attempt); err != nil {
					return err
				}
			}
			res, err := s.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
			if err != nil {
				return fmt.Errorf("dynamodb: batch write: %w", err)
			}
			pending = res.UnprocessedItems
		}
	}
	return nil
}

// relationItems returns a memory's relation items (both directions).
func (s *Store) relationItems(ctx context.Context, orgID, memoryID string) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{
		TableName:              aws.String(s.table),
		KeyConditionExpression: aws.String("PK = :pk AND SK BETWEEN :lo AND :hi"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":pk": str(memPK(orgID, memoryID)), ":lo": str("REL#"), ":hi": str("RREL#\U0010FFFF"),
		},
		ConsistentRead: aws.Bool(true),
	}
	var out []map[string]types.AttributeValue
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: relations: %w", err)
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// Relations implements memory.RelationStore.
func (s *Store) Relations(ctx context.Context, orgID, memoryID string) ([]memory.Relation, error) {
	items, err := s.relationItems(ctx, orgID, memoryID)
	if err != nil {
		return nil, err
	}
	out := make([]memory.Relation, 0, len(items))
	for _, it := range items {
		var r memory.Relation
		if err := json.Unmarshal([]byte(attrS(it, "body")), &r); err != nil {
			return nil, fmt.Errorf("dynamodb: decode relation of %s: %w", memoryID, err)
		}
		if r.OrgID == orgID {
			out = append(out, r)
		}
	}
	other := func(r memory.Relation) string {
		if r.FromID == memoryID {
			return r.ToID
		}
		return r.FromID
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Type != out[j].Type {
			return out[i].Type < out[j].Type
		}
		return other(out[i]) < other(out[j])
	})
	return out, nil
}

// deleteRelations removes a memory's relations and their mirror items.
func (s *Store) deleteRelations(ctx context.Context, orgID, memoryID string) error {
	items, err := s.relationItems(ctx, orgID, memoryID)
	if err != nil || len(items) == 0 {
		return err
	}
	var reqs []types.WriteRequest
	del := func(pk, sk string) {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(pk, sk)}})
	}
	for _, it := range items {
		sk := attrS(it, "SK")
		del(attrS(it, "PK"), sk)
		parts := strings.SplitN(sk, "#", 3) // REL|RREL, type, other id
		if len(parts) != 3 {
			continue
		}
		mirror := "RREL"
		if parts[0] == "RREL" {
			mirror = "REL"
		}
		del(memPK(orgID, parts[2]), mirror+"#"+parts[1]+"#"+memoryID)
	}
	return s.batchWrite(ctx, reqs)
}

// DeleteRelation implements memory.RelationStore: both items of the edge.
func (s *Store) DeleteRelation(ctx context.Context, orgID, fromID string, t memory.RelationType, toID string) error {
	return s.batchWrite(ctx, []types.WriteRequest{
		{DeleteRequest: &types.DeleteRequest{Key: key(memPK(orgID, fromID), "REL#"+string(t)+"#"+toID)}},
		{DeleteRequest: &types.DeleteRequest{Key: key(memPK(orgID, toID), "RREL#"+string(t)+"#"+fromID)}},
	})
}
