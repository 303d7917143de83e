package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An API key is two items, written and revoked together in one
// transaction:
//
//	lookup   KEY#<sha256 of the secret>   KEY        orgId, agentId, keyId, name, grants, prefix, createdAt, revokedAt
//	listing  ORG#<org>#KEYS               <key id>   keyHash and the same attributes
//
// The authorizer reads the lookup item with one GetItem by the hash (the
// org is not known yet); the admin API lists and revokes through the org's
// listing partition. Neither holds the secret. Lookup items written before
// grants existed (no keyId, no grants) authenticate with the default
// grants of their binding.

func keyPK(hash string) string       { return "KEY#" + hash }
func keysPK(org string) string       { return "ORG#" + org + "#KEYS" }
func legacyKeyID(hash string) string { return "key_legacy_" + hash[:16] }

var (
	_ memory.KeyStore     = (*Store)(nil)
	_ memory.UsageCounter = (*Store)(nil)
)

func keyAttrs(k memory.APIKey) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"orgId": str(k.OrgID), "agentId": str(k.AgentID), "keyId": str(k.ID),
		"name": str(k.Name), "grants": num(int64(k.Grants)), "prefix": str(k.Prefix), "createdAt": num(k.CreatedAt.UnixMilli()),
		"keyHash": str(k.Hash)}
	if k.RevokedAt != nil {
		it["revokedAt"] = num(k.RevokedAt.UnixMilli())
	}
	return it
}

func keyFrom(it map[string]types.AttributeValue, hash string) memory.APIKey {
	k := memory.APIKey{Hash: hash, OrgID: attrS(it, "orgId"), AgentID: attrS(it, "agentId"), ID: attrS(it, "keyId"),
		Name: attrS(it, "name"), Prefix: attrS(it, "prefix"), CreatedAt: time.UnixMilli(attrN(it, "createdAt")).UTC()}
	if h := attrS(it, "keyHash"); h != "" {
		k.Hash = h
	}
	if _, ok := it["grants"]; ok {
		k.Grants = memory.Grants(attrN(it, "grants"))
	} else {
		k.Grants = memory.DefaultGrants(k.AgentID)
	}
	if k.ID == "" {
		k.ID = legacyKeyID(k.Hash)
	}
	if _, ok := it["revokedAt"]; ok {
		t := time.UnixMilli(attrN(it, "revokedAt")).UTC()
		k.RevokedAt = &t
	}
	return k
}

// CreateKey implements memory.KeyStore.
func (s *Store) CreateKey(ctx context.Context, k memory.APIKey) error {
	if err := k.Validate(); err != nil {
		return err
	}
	lookup, listing := keyAttrs(k), keyAttrs(k)
	lookup["PK"], lookup["SK"] = str(keyPK(k.Hash)), str(skKey)
	listing["PK"], listing["SK"] = str(keysPK(k.OrgID)), str(k.ID)
	_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Put: &types.Put{TableName: aws.String(s.table), Item: lookup, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
		{Put: &types.Put{TableName: aws.String(s.table), Item: listing, ConditionExpression: aws.String("attribute_not_exists(PK)")}},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && cancelledByCondition(tce) {
		return memory.Errorf(memory.ECONFLICT, "the key exists already")
	} else if err != nil {
		return fmt.Errorf("dynamodb: create key %s of %s: %w", k.ID, k.OrgID, err)
	}
	return nil
}

func cancelledByCondition(e *types.TransactionCanceledException) bool {
	for _, r := range e.CancellationReasons {
		if aws.ToString(r.Code) == "ConditionalCheckFailed" {
			return true
		}
	}
	return false
}

// KeyByHash implements memory.KeyStore: one strongly consistent GetItem,
// so a revocation holds from the next lookup.
func (s *Store) KeyByHash(ctx context.Context, hash string) (memory.APIKey, error) {
	if len(hash) != 64 {
		return memory.APIKey{}, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(keyPK(hash), skKey),
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		return memory.APIKey{}, fmt.Errorf("dynamodb: key by hash: %w", err)
	}
	if res.Item == nil {
		return memory.APIKey{}, memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	return keyFrom(res.Item, hash), nil
}

// ListKeys implements memory.KeyStore.
func (s *Store) ListKeys(ctx context.Context, org string) ([]memory.APIKey, error) {
	out := []memory.APIKey{}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(keysPK(org))}, ConsistentRead: aws.Bool(true)}
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: list keys of %s: %w", org, err)
		}
		for _, it := range res.Items {
			if attrS(it, "orgId") == org {
				out = append(out, keyFrom(it, ""))
			}
		}
		if len(res.LastEvaluatedKey) == 0 {
			return out, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// RevokeKey implements memory.KeyStore: both items in one transaction,
// each keeping the first revocation time.
func (s *Store) RevokeKey(ctx context.Context, org, id string, at time.Time) (memory.APIKey, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(keysPK(org), id),
		ConsistentRead: aws.Bool(true)})
	if err != nil {
		return memory.APIKey{}, fmt.Errorf("dynamodb: revoke key %s: %w", id, err)
	}
	if res.Item == nil || attrS(res.Item, "orgId") != org {
		return memory.APIKey{}, memory.Errorf(memory.ENOTFOUND, "key %q not found", id)
	}
	k := keyFrom(res.Item, "")
	if k.RevokedAt != nil {
		return k, nil
	}
	update := func(pk, sk string) *types.Update {
		return &types.Update{TableName: aws.String(s.table), Key: key(pk, sk),
			UpdateExpression:          aws.String("SET revokedAt = if_not_exists(revokedAt, :at)"),
			ConditionExpression:       aws.String("attribute_exists(PK) AND orgId = :org"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":at": num(at.UnixMilli()), ":org": str(org)}}
	}
	_, err = s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Update: update(keysPK(org), id)}, {Update: update(keyPK(k.Hash), skKey)},
	}})
	var tce *types.TransactionCanceledException
	if errors.As(err, &tce) && cancelledByCondition(tce) {
		return memory.APIKey{}, memory.Errorf(memory.ENOTFOUND, "key %q not found", id)
	} else if err != nil {
		return memory.APIKey{}, fmt.Errorf("dynamodb: revoke key %s: %w", id, err)
	}
	t := at.UTC().Truncate(time.Millisecond)
	k.RevokedAt = &t
	return k, nil
}

// Usage implements memory.UsageCounter by reading the org's memories
// through the byOrg index: O(memories), so callers cache it (the quota
// check does, see transport/httpapi). Bytes are the content text's.
func (s *Store) Usage(ctx context.Context, org string) (memory.OrgUsage, error) {
	var u memory.OrgUsage
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), IndexName: aws.String(schema.ByOrg.Name),
		KeyConditionExpression:    aws.String(schema.ByOrg.PartitionKey + " = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str("ORG#" + org)},
		ProjectionExpression:      aws.String("#t, body"),
		ExpressionAttributeNames:  map[string]string{"#t": "type"}}
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return u, fmt.Errorf("dynamodb: usage of %s: %w", org, err)
		}
		for _, it := range res.Items {
			u.Memories++
			if attrS(it, "type") == string(memory.TypeDocument) {
				u.Documents++
			}
			u.Bytes += int64(contentBytes(attrS(it, "body")))
		}
		if len(res.LastEvaluatedKey) == 0 {
			return u, nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// contentBytes is the length of a memory body's content text.
func contentBytes(body string) int {
	var m struct {
		Content struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal([]byte(body), &m) != nil {
		return 0
	}
	return len(m.Content.Text)
}
