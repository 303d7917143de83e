package dynamodb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func keyPK(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "KEY#" + hex.EncodeToString(sum[:])
}

// PutAPIKey stores an API key for caller under a descriptive name. Only the
// SHA-256 of the key is stored. ECONFLICT if the key exists already.
func (s *Store) PutAPIKey(ctx context.Context, apiKey string, c memory.Caller, name string) error {
	if len(apiKey) < 16 {
		return memory.Errorf(memory.EINVALID, "key: shorter than 16 characters")
	}
	if err := c.Valid(); err != nil {
		return err
	}
	_, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{"PK": str(keyPK(apiKey)), "SK": str(skKey),
			"orgId": str(c.OrgID), "agentId": str(c.AgentID), "name": str(name)},
		ConditionExpression: aws.String("attribute_not_exists(PK)"),
	})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return memory.Errorf(memory.ECONFLICT, "the key exists already")
	}
	return err
}

// Authenticate implements the API's Authenticator: the caller a key
// belongs to, or EUNAUTHORIZED.
func (s *Store) Authenticate(ctx context.Context, apiKey string) (memory.Caller, error) {
	if apiKey == "" {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
	}
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table), Key: key(keyPK(apiKey), skKey)})
	if err != nil {
		return memory.Caller{}, fmt.Errorf("dynamodb: authenticate: %w", err)
	}
	if res.Item == nil {
		return memory.Caller{}, memory.Errorf(memory.EUNAUTHORIZED, "unknown API key")
	}
	return memory.Caller{OrgID: attrS(res.Item, "orgId"), AgentID: attrS(res.Item, "agentId")}, nil
}

// RevokeAPIKey deletes a key; ENOTFOUND if it does not exist.
func (s *Store) RevokeAPIKey(ctx context.Context, apiKey string) error {
	_, err := s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(keyPK(apiKey), skKey),
		ConditionExpression: aws.String("attribute_exists(PK)")})
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return memory.Errorf(memory.ENOTFOUND, "no such key")
	}
	return err
}

func recordPK(org, kind, id string) string { return "ORG#" + org + "#" + kind + "#" + id }

// PutRecord stores value (as JSON) under the org's (kind, id): document
// ingestion status (kind "DOC"), job checkpoints (kind "JOB"). With
// ifVersion 0 the record must not exist; otherwise its stored version must
// equal ifVersion (ECONFLICT if not). It returns the new version.
func (s *Store) PutRecord(ctx context.Context, org, kind, id string, value any, ifVersion int64) (int64, error) {
	js, err := json.Marshal(value)
	if err != nil {
		return 0, err
	}
	in := &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{"PK": str(recordPK(org, kind, id)), "SK": str(skRecord),
			"orgId": str(org), "kind": str(kind), "value": str(string(js)), "version": num(ifVersion + 1)},
	}
	if ifVersion == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(PK)")
	} else {
		in.ConditionExpression = aws.String("version = :v")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":v": num(ifVersion)}
	}
	_, err = s.c.PutItem(ctx, in)
	var ccf *types.ConditionalCheckFailedException
	if errors.As(err, &ccf) {
		return 0, memory.Errorf(memory.ECONFLICT, "%s %q changed concurrently", kind, id)
	}
	if err != nil {
		return 0, fmt.Errorf("dynamodb: put record: %w", err)
	}
	return ifVersion + 1, nil
}

// GetRecord reads the org's (kind, id) into out and returns its version;
// ENOTFOUND if absent.
func (s *Store) GetRecord(ctx context.Context, org, kind, id string, out any) (int64, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(recordPK(org, kind, id), skRecord), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, fmt.Errorf("dynamodb: get record: %w", err)
	}
	if res.Item == nil || attrS(res.Item, "orgId") != org {
		return 0, memory.Errorf(memory.ENOTFOUND, "%s %q not found", kind, id)
	}
	return attrN(res.Item, "version"), json.Unmarshal([]byte(attrS(res.Item, "value")), out)
}
