package client_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/client"
	"github.com/agentmem/agentmem/pkg/transport/contract"
)

// The Go client's types held to the OpenAPI document, as the TypeScript
// client's spec/compat.ts holds its own: each type of the client is paired
// with the schema it reads or sends, and their JSON field names must be
// the same, at every depth the client has a type for (a nested struct
// follows the schema's property: its $ref, its items, the union of an
// allOf). A field the client has and the schema lacks is one the server
// never sends, or refuses; a property the client lacks is one its users
// cannot read, or cannot send.

// schema is the part of a JSON Schema the comparison reads.
type schema struct {
	Ref                  string             `json:"$ref"`
	Properties           map[string]*schema `json:"properties"`
	Items                *schema            `json:"items"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
	AllOf                []*schema          `json:"allOf"`
}

// spec is the document's component schemas by name.
type spec map[string]*schema

// seen holds the named client types already compared, so that a type met
// again inside another (Memory in a search result) is reported once.
type seen map[reflect.Type]bool

func loadSpec(t *testing.T) spec {
	t.Helper()
	var doc struct {
		Components struct {
			Schemas spec `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(contract.OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Components.Schemas) == 0 {
		t.Fatal("the OpenAPI document has no component schemas")
	}
	return doc.Components.Schemas
}

// resolve follows s's $ref and merges its allOf into one object schema
// (nil when s is nil or names a schema the document lacks).
func (sp spec) resolve(s *schema) *schema {
	for s != nil && s.Ref != "" {
		s = sp[strings.TrimPrefix(s.Ref, "#/components/schemas/")]
	}
	if s == nil || len(s.AllOf) == 0 {
		return s
	}
	out := &schema{Properties: map[string]*schema{}, Items: s.Items, AdditionalProperties: s.AdditionalProperties}
	for name, p := range s.Properties {
		out.Properties[name] = p
	}
	for _, part := range s.AllOf {
		for name, p := range sp.resolve(part).Properties {
			out.Properties[name] = p
		}
	}
	return out
}

// jsonFields returns the JSON names of t's fields with their types,
// embedded structs without a tag flattened as encoding/json does.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for n, ft := range jsonFields(f.Type) {
				out[n] = ft
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

var rawJSON = reflect.TypeFor[json.RawMessage]()

// compare appends to diffs the differences between the fields of typ and
// the properties of s, at path, and descends into nested structs.
func (sp spec) compare(path string, typ reflect.Type, s *schema, done seen, diffs *[]string) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	s = sp.resolve(s)
	if s == nil || typ == rawJSON {
		return
	}
	switch typ.Kind() {
	case reflect.Slice, reflect.Array:
		sp.compare(path+"[]", typ.Elem(), s.Items, done, diffs)
		return
	case reflect.Map:
		var elem schema
		if json.Unmarshal(s.AdditionalProperties, &elem) == nil {
			sp.compare(path+"{}", typ.Elem(), &elem, done, diffs)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	if len(s.Properties) == 0 || done[typ] {
		return // a free-form object (metadata): any fields; or compared already
	}
	if typ.Name() != "" {
		done[typ] = true
	}
	fields := jsonFields(typ)
	// In name order, so that a type met at two places is compared at the
	// same one every run.
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		ft := fields[name]
		p, ok := s.Properties[name]
		if !ok {
			*diffs = append(*diffs, path+"."+name+": in the client, not in the schema")
			continue
		}
		sp.compare(path+"."+name, ft, p, done, diffs)
	}
	for name := range s.Properties {
		if _, ok := fields[name]; !ok {
			*diffs = append(*diffs, path+"."+name+": in the schema, not in the client")
		}
	}
}

// TestTypesMatchTheOpenAPIDocument pairs each type the client reads or
// sends with its schema.
func TestTypesMatchTheOpenAPIDocument(t *testing.T) {
	sp := loadSpec(t)
	tests := []struct {
		schema string
		typ    reflect.Type
	}{
		// Responses: what the client reads.
		{"Memory", reflect.TypeFor[client.Memory]()},
		{"CreateResult", reflect.TypeFor[client.CreateResult]()},
		{"MemoryPage", reflect.TypeFor[client.MemoryPage]()},
		{"SearchResponse", reflect.TypeFor[client.SearchResponse]()},
		{"ContextResult", reflect.TypeFor[client.PromptContext]()},
		{"WorkstreamBlock", reflect.TypeFor[client.WorkstreamBlock]()},
		{"WorkstreamList", reflect.TypeFor[client.WorkstreamList]()},
		{"Relation", reflect.TypeFor[client.Relation]()},
		{"DocumentStatus", reflect.TypeFor[client.Document]()},
		{"DocumentPage", reflect.TypeFor[client.DocumentPage]()},
		{"MessagesResponse", reflect.TypeFor[client.MessagesResult]()},
		{"KnowledgeSearchResult", reflect.TypeFor[client.KnowledgeSearchResponse]()},
		{"KnowledgePrefetchResult", reflect.TypeFor[client.KnowledgePrefetchResponse]()},
		{"ForgetResponse", reflect.TypeFor[client.ForgetReport]()},
		{"ImportReport", reflect.TypeFor[client.ImportReport]()},
		{"MemoryHistory", reflect.TypeFor[client.MemoryHistory]()},
		{"Whoami", reflect.TypeFor[client.Whoami]()},
		{"CreateKeyResponse", reflect.TypeFor[client.CreatedKey]()},
		{"UsageResponse", reflect.TypeFor[client.Usage]()},
		{"AuditEntry", reflect.TypeFor[client.AuditEntry]()},
		{"ConsolidationReport", reflect.TypeFor[client.ConsolidationReport]()},
		{"SettingsResponse", reflect.TypeFor[client.StoredSettings]()},
		{"KnowledgeItem", reflect.TypeFor[client.KnowledgeListItem]()},
		// Requests: what the client sends.
		{"NewMemory", reflect.TypeFor[client.NewMemory]()},
		{"Patch", reflect.TypeFor[client.Patch]()},
		{"SearchRequest", reflect.TypeFor[client.SearchRequest]()},
		{"ContextRequest", reflect.TypeFor[client.ContextRequest]()},
		{"NewWorkstream", reflect.TypeFor[client.NewWorkstream]()},
		{"NewWorkstreamEntry", reflect.TypeFor[client.NewEntry]()},
		{"RelationRequest", reflect.TypeFor[client.NewRelation]()},
		{"KnowledgeSearchRequest", reflect.TypeFor[client.KnowledgeSearchRequest]()},
		{"KnowledgePrefetchRequest", reflect.TypeFor[client.KnowledgePrefetchRequest]()},
		{"KnowledgeScope", reflect.TypeFor[client.KnowledgeScope]()},
		{"Filters", reflect.TypeFor[client.Filter]()},
		{"ForgetRequest", reflect.TypeFor[client.ForgetRequest]()},
		{"CreateKeyRequest", reflect.TypeFor[client.KeyRequest]()},
		{"ExtractionSettings", reflect.TypeFor[client.ExtractionSettings]()},
	}
	done := seen{}
	for _, tc := range tests {
		t.Run(tc.schema, func(t *testing.T) {
			s, ok := sp[tc.schema]
			if !ok {
				t.Fatalf("the OpenAPI document has no schema %s", tc.schema)
			}
			var diffs []string
			sp.compare(tc.typ.Name(), tc.typ, s, done, &diffs)
			sort.Strings(diffs)
			for _, d := range diffs {
				t.Errorf("client.%s vs #/components/schemas/%s: %s", tc.typ.Name(), tc.schema, d)
			}
		})
	}
}

// TestCompareFindsDifferences pins the comparison itself on a small
// document, so that a silent pass means agreement.
func TestCompareFindsDifferences(t *testing.T) {
	var sp spec
	doc := `{
		"Outer": {"properties": {"name": {}, "inner": {"$ref": "#/components/schemas/Inner"}, "list": {"items": {"allOf": [{"$ref": "#/components/schemas/Inner"}, {"properties": {"extra": {}}}]}}, "only": {}}},
		"Inner": {"properties": {"a": {}, "b": {}}}
	}`
	if err := json.Unmarshal([]byte(doc), &sp); err != nil {
		t.Fatal(err)
	}
	type inner struct {
		A string `json:"a"`
		C string `json:"c"`
	}
	type listed struct {
		inner
		B     string `json:"b"`
		Extra string `json:"extra"`
	}
	type outer struct {
		Name  string   `json:"name"`
		Inner *inner   `json:"inner"`
		List  []listed `json:"list"`
		Mine  string   `json:"mine"`
	}
	var diffs []string
	sp.compare("outer", reflect.TypeFor[outer](), sp["Outer"], seen{}, &diffs)
	sort.Strings(diffs)
	want := []string{
		"outer.inner.b: in the schema, not in the client",
		"outer.inner.c: in the client, not in the schema",
		"outer.list[].c: in the client, not in the schema",
		"outer.mine: in the client, not in the schema",
		"outer.only: in the schema, not in the client",
	}
	if !slices.Equal(diffs, want) {
		t.Errorf("diffs:\n%s\nwant:\n%s", strings.Join(diffs, "\n"), strings.Join(want, "\n"))
	}
}
