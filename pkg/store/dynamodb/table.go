// Package dynamodb is the Store on Amazon DynamoDB (aws-sdk-go-v2), one
// table for everything (single-table design). Every key starts with the
// org, so no request can reach another org's items.
//
// Items (PK, SK):
//
//	memory        ORG#<org>#MEM#<id>        MEMORY
//	access        ORG#<org>#MEM#<id>        ACCESS         accessCount, lastAccessedAt added to the memory's (access.go)
//	dedup claim   ORG#<org>#DEDUP#<key>     DEDUP          memoryId of the holder
//	relation      ORG#<org>#MEM#<from>      REL#<type>#<to>      and its mirror
//	              ORG#<org>#MEM#<to>        RREL#<type>#<from>   (both directions in one query)
//	record        ORG#<org>#<kind>#<id>     RECORD         document status, checkpoints (JSON value)
//	API key       KEY#<sha256 of the key>   KEY            orgId, agentId, keyId, grants... (lookup; the key itself is never stored)
//	              ORG#<org>#KEYS            <key id>       the same, for listing and revoking (keys.go)
//	knowledge     ORG#<org>#MEM#<id>        KNOW, KGEN#…, KREF#…, KCNT#…   status, generations, refs (terms.go)
//	              ORG#<org>#KTERM#<term>, #KPROP#<name>, #KLIST#<kind>, #KVOCAB#<scope>   postings, counters
//
// Memories carry sparse global secondary indexes (package schema states
// the table: keys, indexes, TTL), all sorted by "<createdAt, 16
// digits>#<id>" (newest first when read backwards):
//
//	GSI1 byOrg      ORG#<org>
//	GSI2 byRoom     ORG#<org>#ROOM#<room>
//	GSI3 byEntity   ORG#<org>#ENT#<entity>
//	GSI4 bySession  ORG#<org>#SES#<session>
//	GSI5 byType     ORG#<org>#TYPE#<type>
//	GSI6 byDocument ORG#<org>#DOC#<document>   (fragments of a document)
//
// GSI1 also holds ORG#<org>#KPENDING, sorted by memory id: the knowledge
// statuses that are pending (terms.go).
//
// A list uses the most selective index the filter allows and applies the
// rest as a filter expression; pages continue from an opaque cursor. Memory
// writes that create or move a dedup claim are transactions with conditions,
// so two concurrent writers of the same content make one memory, and every
// update is conditional on the version, so racing updates never lose one.
// Ephemeral memories get a "ttl" attribute so DynamoDB expires them.
package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TTLAttribute is the table's time-to-live attribute (epoch seconds).
const TTLAttribute = schema.TTLAttribute

// TableInput is the definition of the table called name, from package
// schema: its key, its indexes (all attributes projected) and on-demand
// billing.
func TableInput(name string) *dynamodb.CreateTableInput {
	var attrs []types.AttributeDefinition
	for _, a := range schema.Attributes() {
		attrs = append(attrs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
	}
	key := func(pk, sk string) []types.KeySchemaElement {
		return []types.KeySchemaElement{
			{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange},
		}
	}
	var indexes []types.GlobalSecondaryIndex
	for _, ix := range schema.Indexes {
		indexes = append(indexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  key(ix.PartitionKey, ix.SortKey),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	return &dynamodb.CreateTableInput{
		TableName:              aws.String(name),
		AttributeDefinitions:   attrs,
		KeySchema:              key(schema.PartitionKey, schema.SortKey),
		GlobalSecondaryIndexes: indexes,
		BillingMode:            types.BillingModePayPerRequest,
	}
}

// CreateTable creates the table (TableInput) and waits until it is active,
// then enables TTL. The CDK app declares the same table in AWS from the
// same schema; this is for local servers and tests.
func CreateTable(ctx context.Context, c *dynamodb.Client, name string) error {
	_, err := c.CreateTable(ctx, TableInput(name))
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("dynamodb: create table %s: %w", name, err)
	}
	w := dynamodb.NewTableExistsWaiter(c)
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 2*time.Minute); err != nil {
		return fmt.Errorf("dynamodb: table %s not active: %w", name, err)
	}
	_, err = c.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(TTLAttribute), Enabled: aws.Bool(true),
		},
	})
	if err != nil && !isTTLAlreadyOn(err) {
		return fmt.Errorf("dynamodb: enable TTL on %s: %w", name, err)
	}
	return nil
}

func isTTLAlreadyOn(err error) bool {
	var ve interface{ ErrorMessage() string }
	return errors.As(err, &ve) && (strings.Contains(ve.ErrorMessage(), "already enabled") || strings.Contains(ve.ErrorMessage(), "TimeToLive is already"))
}

// DeleteTable removes the table (tests).
func DeleteTable(ctx context.Context, c *dynamodb.Client, name string) error {
	if _, err := c.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(name)}); err != nil {
		return fmt.Errorf("dynamodb: delete table %s: %w", name, err)
	}
	return nil
}
