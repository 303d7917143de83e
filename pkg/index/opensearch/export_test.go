package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// CreateSchema2 creates an index version with the mapping of schema 2 (no
// visibility fields, no "text.tf") behind the alias, as a deployment made
// before visibilities has it.
func CreateSchema2(ctx context.Context, ix *Index) error {
	body := ix.mapping()
	mappings := body["mappings"].(map[string]any)
	mappings["_meta"] = map[string]any{"dimensions": ix.cfg.Dimensions, "schema": 2}
	props := mappings["properties"].(map[string]any)
	for f := range visibilityFields() {
		delete(props, f)
	}
	props["text"] = map[string]any{"type": "text", "analyzer": analyzerName}
	name := ix.cfg.Alias + "-schema2"
	if err := ix.do(ctx, http.MethodPut, "/"+name, body, nil); err != nil {
		return err
	}
	return ix.swap(ctx, name, nil)
}

// WriteSchema2 indexes m as a writer of schema 2 did: without the
// visibility fields.
func WriteSchema2(ctx context.Context, ix *Index, m *memory.Memory) error {
	doc := source(m)
	for f := range visibilityFields() {
		delete(doc, f)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.Encode(map[string]any{"index": map[string]any{"_index": ix.target, "_id": docID(m.OrgID, m.ID), "routing": m.OrgID}})
	enc.Encode(doc)
	return ix.bulk(ctx, &body)
}

// SetExact turns the reader's-statistics scoring on or off (off: a schema
// 2 index's OpenSearch BM25), for benchmarks.
func SetExact(ix *Index, on bool) { ix.exact.Store(on) }
