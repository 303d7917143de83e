package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"strings"
)

// Records live in one partition per org and kind, sorted by id, so a kind
// lists with one query.
func recordPK(org, kind string) string { return "ORG#" + org + "#REC#" + kind }

var _ memory.RecordStore = (*Store)(nil)

// PutRecord implements memory.RecordStore.
func (s *Store) PutRecord(ctx context.Context, org, kind, id string, value any, ifVersion int64) (int64, error) {
	js, err := json.Marshal(value)
	if err != nil {
		return 0, fmt.Errorf("dynamodb: put record %s/%s: %w", kind, id, err)
	}
	in := &dynamodb.UpdateItemInput{
		TableName:                aws.String(s.table),
		Key:                      key(recordPK(org, kind), id),
		UpdateExpression:         aws.String("SET orgId = :org, #v = :value, version = if_not_exists(version, :zero) + :one"),
		ExpressionAttributeNames: map[string]string{"#v": "value"},
		ExpressionAttributeValues: map[string]types.AttributeValue{":org": str(org), ":value": str(string(js)),
			":zero": num(0), ":one": num(1)},
		ReturnValues: types.ReturnValueUpdatedNew,
	}
	switch {
	case ifVersion == memory.RecordCreateOnly:
		in.ConditionExpression = aws.String("attribute_not_exists(version)")
	case ifVersion > 0:
		in.ConditionExpression = aws.String("version = :expected")
		in.ExpressionAttributeValues[":expected"] = num(ifVersion)
	}
	res, err := s.c.UpdateItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return 0, memory.Errorf(memory.ECONFLICT, "%s %q changed concurrently", kind, id)
	}
	if err != nil {
		return 0, fmt.Errorf("dynamodb: put record: %w", err)
	}
	return attrN(res.Attributes, "version"), nil
}

// GetRecord implements memory.RecordStore.
func (s *Store) GetRecord(ctx context.Context, org, kind, id string, out any) (int64, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(recordPK(org, kind), id), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("dynamodb: get record: %w", err)
	}
	if res.Item == nil || attrS(res.Item, "orgId") != org {
		return 0, memory.Errorf(memory.ENOTFOUND, "%s %q not found", strings.ToLower(kind), id)
	}
	return attrN(res.Item, "version"), json.Unmarshal([]byte(attrS(res.Item, "value")), out)
}

// ListRecords implements memory.RecordStore.
func (s *Store) ListRecords(ctx context.Context, org, kind, after string, limit int) ([]memory.Record, string, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		KeyConditionExpression:    aws.String("PK = :pk"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(recordPK(org, kind))},
		Limit:                     aws.Int32(int32(limit + 1)),
	}
	if after != "" {
		in.ExclusiveStartKey = key(recordPK(org, kind), after)
	}
	res, err := s.c.Query(ctx, in)
	if err != nil {
		return nil, "", fmt.Errorf("dynamodb: list records: %w", err)
	}
	var out []memory.Record
	for _, it := range res.Items {
		out = append(out, memory.Record{Kind: kind, ID: attrS(it, "SK"), Version: attrN(it, "version"), Value: json.RawMessage(attrS(it, "value"))})
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1].ID
	}
	return out, next, nil
}

// DeleteRecord implements memory.RecordStore.
func (s *Store) DeleteRecord(ctx context.Context, org, kind, id string) error {
	if _, err := s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(recordPK(org, kind), id)}); err != nil {
		return fmt.Errorf("dynamodb: delete record %s/%s: %w", kind, id, err)
	}
	return nil
}
