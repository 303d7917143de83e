package dynamodb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// An idempotency key is one item:
//
//	IDEM#<sha256 of org, scope and key>   IDEM   orgId, scope, idemKey, fingerprint, done,
//	                                             status, header, body, leaseUntil, expiresAt, ttl
//
// The hash keeps any key (and any scope) from being read as another's; the
// item still names its org, scope and key, and every read checks them. A
// reservation is a conditional put that succeeds only over no item, an
// expired one or an abandoned reservation; the ttl attribute lets DynamoDB
// delete expired items, and reads ignore those it has not deleted yet.

const skIdempotency = "IDEM"

// IdempotencyStore is the DynamoDB memory.IdempotencyStore, in the
// store's table.
type IdempotencyStore struct{ s *Store }

var _ memory.IdempotencyStore = (*IdempotencyStore)(nil)

// Idempotency returns the idempotency keys kept in s's table.
func (s *Store) Idempotency() *IdempotencyStore { return &IdempotencyStore{s: s} }

func idempotencyKey(org, scope, k string) map[string]types.AttributeValue {
	sum := sha256.Sum256([]byte(org + "\x00" + scope + "\x00" + k))
	return key("IDEM#"+hex.EncodeToString(sum[:]), skIdempotency)
}

func idempotencyFrom(it map[string]types.AttributeValue) (*memory.IdempotencyRecord, error) {
	r := &memory.IdempotencyRecord{OrgID: attrS(it, "orgId"), Scope: attrS(it, "scope"), Key: attrS(it, "idemKey"),
		Fingerprint: attrS(it, "fingerprint"), Status: int(attrN(it, "status")),
		LeaseUntil: attrN(it, "leaseUntil"), ExpiresAt: attrN(it, "expiresAt")}
	if b, ok := it["done"].(*types.AttributeValueMemberBOOL); ok {
		r.Done = b.Value
	}
	if !r.Done {
		return r, nil
	}
	if b, ok := it["body"].(*types.AttributeValueMemberB); ok {
		r.Body = b.Value
	}
	if h := attrS(it, "header"); h != "" {
		if err := json.Unmarshal([]byte(h), &r.Header); err != nil {
			return nil, fmt.Errorf("header: %w", err)
		}
	}
	return r, nil
}

// idempotencyNames maps the placeholders an expression uses to the item's
// attribute names (placeholders everywhere: no reserved word can bite).
func idempotencyNames(placeholders ...string) map[string]string {
	all := map[string]string{"#expires": "expiresAt", "#done": "done", "#lease": "leaseUntil", "#status": "status",
		"#header": "header", "#body": "body", "#org": "orgId", "#fp": "fingerprint"}
	out := make(map[string]string, len(placeholders))
	for _, p := range placeholders {
		out[p] = all[p]
	}
	return out
}

// get reads the item of a key, nil when there is none or it belongs to
// another org, scope or key.
func (x *IdempotencyStore) get(ctx context.Context, org, scope, k string) (*memory.IdempotencyRecord, error) {
	res, err := x.s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(x.s.table),
		Key: idempotencyKey(org, scope, k), ConsistentRead: aws.Bool(true)})
	if err != nil || res.Item == nil {
		return nil, err
	}
	r, err := idempotencyFrom(res.Item)
	if err != nil || r.OrgID != org || r.Scope != scope || r.Key != k {
		return nil, err
	}
	return r, nil
}

// Reserve implements memory.IdempotencyStore.
func (x *IdempotencyStore) Reserve(ctx context.Context, r memory.IdempotencyRecord, now time.Time) (*memory.IdempotencyRecord, error) {
	it := idempotencyKey(r.OrgID, r.Scope, r.Key)
	it["orgId"], it["scope"], it["idemKey"], it["fingerprint"] = str(r.OrgID), str(r.Scope), str(r.Key), str(r.Fingerprint)
	it["done"], it["leaseUntil"], it["expiresAt"] = boolean(false), num(r.LeaseUntil), num(r.ExpiresAt)
	it[TTLAttribute] = num(r.ExpiresAt/1000 + 1)
	at := strconv.FormatInt(now.UnixMilli(), 10)
	// A lost race against a reservation that then vanishes (released, or
	// expired) is retried; a live holder is returned.
	for range 3 {
		_, err := x.s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(x.s.table), Item: it,
			ConditionExpression:      aws.String("attribute_not_exists(PK) OR #expires <= :now OR (#done = :false AND #lease <= :now)"),
			ExpressionAttributeNames: idempotencyNames("#expires", "#done", "#lease"),
			ExpressionAttributeValues: map[string]types.AttributeValue{
				":now": &types.AttributeValueMemberN{Value: at}, ":false": boolean(false)}})
		var ccf *types.ConditionalCheckFailedException
		if err == nil {
			return nil, nil
		} else if !errors.As(err, &ccf) {
			return nil, fmt.Errorf("dynamodb: reserve idempotency key of %s: %w", r.OrgID, err)
		}
		cur, err := x.get(ctx, r.OrgID, r.Scope, r.Key)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: reserve idempotency key of %s: %w", r.OrgID, err)
		}
		if cur != nil {
			return cur, nil
		}
	}
	return nil, memory.Errorf(memory.ECONFLICT, "Idempotency-Key: contended; retry")
}

// Complete implements memory.IdempotencyStore.
func (x *IdempotencyStore) Complete(ctx context.Context, r memory.IdempotencyRecord) error {
	if len(r.Body) > memory.MaxIdempotentResponse {
		return memory.Errorf(memory.ETOOLARGE, "idempotent response: %d bytes exceed the limit of %d", len(r.Body), memory.MaxIdempotentResponse)
	}
	header, err := json.Marshal(r.Header)
	if err != nil {
		return err
	}
	body := r.Body
	if body == nil {
		body = []byte{}
	}
	_, err = x.s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(x.s.table),
		Key:                      idempotencyKey(r.OrgID, r.Scope, r.Key),
		UpdateExpression:         aws.String("SET #done = :true, #status = :status, #header = :header, #body = :body"),
		ConditionExpression:      aws.String("#org = :org AND #fp = :fp AND #done = :false"),
		ExpressionAttributeNames: idempotencyNames("#done", "#status", "#header", "#body", "#org", "#fp"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":true": boolean(true), ":false": boolean(false), ":status": num(int64(r.Status)),
			":header": str(string(header)), ":body": &types.AttributeValueMemberB{Value: body},
			":org": str(r.OrgID), ":fp": str(r.Fingerprint)}})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return memory.Errorf(memory.ENOTFOUND, "idempotency key %q is not reserved by this request", r.Key)
	} else if err != nil {
		return fmt.Errorf("dynamodb: complete idempotency key of %s: %w", r.OrgID, err)
	}
	return nil
}

// Release implements memory.IdempotencyStore.
func (x *IdempotencyStore) Release(ctx context.Context, orgID, scope, k, fingerprint string) error {
	_, err := x.s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(x.s.table),
		Key:                      idempotencyKey(orgID, scope, k),
		ConditionExpression:      aws.String("#org = :org AND #fp = :fp AND #done = :false"),
		ExpressionAttributeNames: idempotencyNames("#org", "#fp", "#done"),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":false": boolean(false), ":org": str(orgID), ":fp": str(fingerprint)}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return fmt.Errorf("dynamodb: release idempotency key of %s: %w", orgID, err)
	}
	return nil
}

// Get implements memory.IdempotencyStore.
func (x *IdempotencyStore) Get(ctx context.Context, orgID, scope, k string, now time.Time) (*memory.IdempotencyRecord, error) {
	r, err := x.get(ctx, orgID, scope, k)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: get idempotency key of %s: %w", orgID, err)
	}
	if r == nil || r.ExpiresAt <= now.UnixMilli() {
		return nil, memory.Errorf(memory.ENOTFOUND, "idempotency key %q not found", k)
	}
	return r, nil
}
