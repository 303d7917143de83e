package dynamodb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A memory's history lives in its own partition (memPK), one item per
// version under SK "HIST#<version>", so that it is written in the
// transaction of the version and deleted with the memory's relations.
const skHistory = "HIST#"

func historySK(version int64) string { return fmt.Sprintf("%s%019d", skHistory, version) }

// revisionItem is the history item of m, whose memory item is it; op is
// used when m carries no Change. It expires with an ephemeral memory.
func (s *Store) revisionItem(m *memory.Memory, it map[string]types.AttributeValue, op string) map[string]types.AttributeValue {
	var by memory.Actor
	if m.Change != nil {
		op, by = m.Change.Op, m.Change.By
	}
	rev := map[string]types.AttributeValue{
		"PK": str(memPK(m.OrgID, m.ID)), "SK": str(historySK(m.Version)), "orgId": str(m.OrgID),
		"version": num(m.Version), "op": str(op), "at": num(m.UpdatedAt), "keyId": str(by.KeyID),
		"agentId": str(by.AgentID), "body": it["body"],
	}
	if ttl, ok := it[TTLAttribute]; ok {
		rev[TTLAttribute] = ttl
	}
	return rev
}

// historyKeys lists the keys of memory id's history items.
func (s *Store) historyItems(ctx context.Context, orgID, id string, keysOnly bool) ([]map[string]types.AttributeValue, error) {
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :h)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(memPK(orgID, id)), ":h": str(skHistory)}}
	if keysOnly {
		in.ProjectionExpression = aws.String("PK, SK")
	}
	var out []map[string]types.AttributeValue
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Items...)
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// deleteHistory removes every history item of memory id.
func (s *Store) deleteHistory(ctx context.Context, orgID, id string) error {
	return s.deleteHistoryBefore(ctx, orgID, id, 0)
}

// deleteHistoryBefore removes the history items of memory id older than
// version (every one when version is 0).
func (s *Store) deleteHistoryBefore(ctx context.Context, orgID, id string, version int64) error {
	items, err := s.historyItems(ctx, orgID, id, true)
	if err != nil {
		return fmt.Errorf("dynamodb: delete history of %s: %w", id, err)
	}
	var reqs []types.WriteRequest
	for _, it := range items {
		if version != 0 && attrS(it, "SK") >= historySK(version) {
			continue
		}
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(attrS(it, "PK"), attrS(it, "SK"))}})
	}
	if err := s.batchWrite(ctx, reqs); err != nil {
		return fmt.Errorf("dynamodb: delete history of %s: %w", id, err)
	}
	return nil
}

// History implements memory.HistoryStore.
func (s *Store) History(ctx context.Context, orgID, id string) ([]memory.Revision, error) {
	cur, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(memPK(orgID, id), skMemory), ConsistentRead: aws.Bool(true), ProjectionExpression: aws.String("orgId")})
	if err != nil {
		return nil, fmt.Errorf("dynamodb: history of %s: %w", id, err)
	}
	if cur.Item == nil || attrS(cur.Item, "orgId") != orgID {
		return nil, memory.ErrNotFound(id)
	}
	items, err := s.historyItems(ctx, orgID, id, false)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: history of %s: %w", id, err)
	}
	out := make([]memory.Revision, 0, len(items))
	for _, it := range items {
		if attrS(it, "orgId") != orgID {
			continue // never trust a key alone
		}
		r := memory.Revision{Version: attrN(it, "version"), Op: attrS(it, "op"), At: attrN(it, "at"),
			By: memory.Actor{KeyID: attrS(it, "keyId"), AgentID: attrS(it, "agentId")}, Memory: new(memory.Memory)}
		if err := json.Unmarshal([]byte(attrS(it, "body")), r.Memory); err != nil {
			return nil, fmt.Errorf("dynamodb: history of %s: decode version %d: %w", id, r.Version, err)
		}
		r.Memory.Version = r.Version
		out = append(out, r)
	}
	return out, nil
}
