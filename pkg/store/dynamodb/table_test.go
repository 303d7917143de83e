package dynamodb

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
)

// TestTableInputFollowsTheSchema: CreateTable declares every key attribute
// once, as a string, and every index of the schema with its keys and all
// attributes projected.
func TestTableInputFollowsTheSchema(t *testing.T) {
	in := TableInput("mem")
	if aws.ToString(in.TableName) != "mem" || aws.ToString(in.KeySchema[0].AttributeName) != schema.PartitionKey ||
		aws.ToString(in.KeySchema[1].AttributeName) != schema.SortKey {
		t.Fatalf("table key: %+v", in.KeySchema)
	}
	attrs := map[string]string{}
	for _, a := range in.AttributeDefinitions {
		attrs[aws.ToString(a.AttributeName)] = string(a.AttributeType)
	}
	if len(attrs) != len(in.AttributeDefinitions) || len(attrs) != 2+2*len(schema.Indexes) {
		t.Fatalf("attributes: %v", attrs)
	}
	if len(in.GlobalSecondaryIndexes) != len(schema.Indexes) {
		t.Fatalf("%d indexes, want %d", len(in.GlobalSecondaryIndexes), len(schema.Indexes))
	}
	for i, ix := range schema.Indexes {
		g := in.GlobalSecondaryIndexes[i]
		if aws.ToString(g.IndexName) != ix.Name || aws.ToString(g.KeySchema[0].AttributeName) != ix.PartitionKey ||
			aws.ToString(g.KeySchema[1].AttributeName) != ix.SortKey || g.Projection.ProjectionType != "ALL" {
			t.Errorf("index %s: %+v", ix.Name, g)
		}
		for _, a := range []string{ix.PartitionKey, ix.SortKey} {
			if attrs[a] != "S" {
				t.Errorf("index %s: attribute %s declared as %q", ix.Name, a, attrs[a])
			}
		}
	}
}
