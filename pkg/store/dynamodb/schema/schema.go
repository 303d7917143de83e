// Package schema states the DynamoDB table of the memory service once: its
// key attributes, its global secondary indexes and its time-to-live
// attribute. The store (store/dynamodb) writes and queries by these names,
// its CreateTable creates the table from them for local servers and tests,
// and the CDK app (infra, its own module, through a replace directive)
// declares the same table in AWS from them. It imports nothing, so the CDK
// app links nothing else of the service.
//
// Every key attribute is a string; every index projects all attributes.
// Adding an index is one entry in Indexes: the store, CreateTable and the
// CDK app all pick it up.
package schema

// The table's primary key: partition and sort key attributes.
const (
	PartitionKey = "PK"
	SortKey      = "SK"
)

// TTLAttribute is the table's time-to-live attribute (epoch seconds):
// ephemeral memories carry it, so DynamoDB expires them.
const TTLAttribute = "ttl"

// Index is a global secondary index: its name and its partition and sort
// key attributes.
type Index struct {
	Name         string
	PartitionKey string
	SortKey      string
}

// The global secondary indexes of memory items, all sorted by
// "<createdAt, 16 digits>#<id>" (newest first when read backwards); the
// store's package comment gives their partition keys.
var (
	ByOrg      = Index{"byOrg", "GSI1PK", "GSI1SK"}
	ByRoom     = Index{"byRoom", "GSI2PK", "GSI2SK"}
	ByEntity   = Index{"byEntity", "GSI3PK", "GSI3SK"}
	BySession  = Index{"bySession", "GSI4PK", "GSI4SK"}
	ByType     = Index{"byType", "GSI5PK", "GSI5SK"}
	ByDocument = Index{"byDocument", "GSI6PK", "GSI6SK"}
)

// Indexes lists every global secondary index of the table.
var Indexes = []Index{ByOrg, ByRoom, ByEntity, BySession, ByType, ByDocument}

// Attributes lists every key attribute of the table and its indexes, each
// once: what a table definition declares.
func Attributes() []string {
	out := []string{PartitionKey, SortKey}
	for _, ix := range Indexes {
		out = append(out, ix.PartitionKey, ix.SortKey)
	}
	return out
}
