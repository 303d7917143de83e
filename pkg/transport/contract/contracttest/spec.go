// Package contracttest reads the OpenAPI document of the contract
// (contract.OpenAPI) for tests: its operations with their grants, and the
// validation of a real response against the schema the document gives for
// its operation, status and content type. Schemas are JSON Schema 2020-12
// (the OpenAPI 3.1 dialect), validated by santhosh-tekuri/jsonschema.
//
// Its errors are written for whoever reconciles the document with the
// handler: each names the operation, the status and what differs.
package contracttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentmem/agentmem/pkg/transport/contract"
)

// docURL names the document for the schema compiler; every $ref of the
// document is local to it ("#/components/schemas/...").
const docURL = "urn:agentmem:openapi.json"

// methods are the operation keys of an OpenAPI path item.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Spec is a parsed OpenAPI document with its schemas compiled on demand.
type Spec struct {
	// Doc is the document as decoded JSON.
	Doc map[string]any

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// Operation is one operation of the document.
type Operation struct {
	// Method is upper case ("GET"); Path is the path template
	// ("/v1/memories/{id}").
	Method, Path string
	// ID is the operationId.
	ID string
	// Grants are the names of x-agentmem-grants (empty: public).
	Grants []string
	// Public is true when the operation needs no key (security: []).
	Public bool
	// Planned marks an operation of the contract of record that the
	// server does not serve yet (x-agentmem-planned).
	Planned bool
	// Outside marks an operation served beside the API handler, not by
	// its route table (x-agentmem-outside-route-table).
	Outside bool
	// AnyKey marks an operation that needs a valid key but no grant
	// (x-agentmem-any-key): the route table registers it without a grant
	// and its handler authenticates the caller itself.
	AnyKey bool
	// NoClient is the reason the clients have no method for the operation
	// (x-agentmem-no-client: a page, a script, MCP); empty for the others,
	// which each client must cover.
	NoClient string
	// Statuses are the documented response statuses ("200", "404"...).
	Statuses []string
}

// String is "METHOD path".
func (o Operation) String() string { return o.Method + " " + o.Path }

// Load parses contract.OpenAPI.
func Load() (*Spec, error) { return Parse(contract.OpenAPI) }

// Parse parses an OpenAPI document given as JSON.
func Parse(b []byte) (*Spec, error) {
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("openapi: not JSON: %w", err)
	}
	// The compiler wants its own decoding (json.Number for numbers).
	raw, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, raw); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return &Spec{Doc: doc, compiler: c, schemas: map[string]*jsonschema.Schema{}}, nil
}

// Operations returns every operation, by path then method.
func (s *Spec) Operations() []Operation {
	paths, _ := s.Doc["paths"].(map[string]any)
	var out []Operation
	for path, item := range paths {
		item, _ := item.(map[string]any)
		for _, m := range methods {
			op, ok := item[m].(map[string]any)
			if !ok {
				continue
			}
			o := Operation{Method: strings.ToUpper(m), Path: path}
			o.ID, _ = op["operationId"].(string)
			for _, g := range asSlice(op["x-agentmem-grants"]) {
				if name, ok := g.(string); ok {
					o.Grants = append(o.Grants, name)
				}
			}
			if sec, ok := op["security"].([]any); ok && len(sec) == 0 {
				o.Public = true
			}
			o.Planned, _ = op["x-agentmem-planned"].(bool)
			o.Outside, _ = op["x-agentmem-outside-route-table"].(bool)
			o.AnyKey, _ = op["x-agentmem-any-key"].(bool)
			o.NoClient, _ = op["x-agentmem-no-client"].(string)
			resp, _ := op["responses"].(map[string]any)
			for st := range resp {
				o.Statuses = append(o.Statuses, st)
			}
			sort.Strings(o.Statuses)
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// Operation returns the operation of method and path template.
func (s *Spec) Operation(method, path string) (Operation, bool) {
	for _, o := range s.Operations() {
		if o.Method == method && o.Path == path {
			return o, true
		}
	}
	return Operation{}, false
}

// ValidateResponse checks a real response of the operation (method, path
// template) against the document: its status must be documented, its
// content type must be one the status documents, and its body must
// validate against that media type's schema. A status documented without
// content must have an empty body.
func (s *Spec) ValidateResponse(method, path string, status int, contentType string, body []byte) error {
	name := method + " " + path
	resp, ptr, err := s.response(method, path, strconv.Itoa(status))
	if err != nil {
		return err
	}
	content, _ := resp["content"].(map[string]any)
	if len(content) == 0 {
		if len(bytes.TrimSpace(body)) > 0 {
			return fmt.Errorf("response of %s (%d) has a body, but the spec documents none", name, status)
		}
		return nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("response of %s (%d): Content-Type %q: %v", name, status, contentType, err)
	}
	media, ok := content[mt].(map[string]any)
	if !ok {
		return fmt.Errorf("response of %s (%d) is %s, which the spec does not document (it documents %s)",
			name, status, mt, strings.Join(keys(content), ", "))
	}
	if _, ok := media["schema"]; !ok {
		return nil
	}
	return s.validate(ptr+"/content/"+escape(mt)+"/schema", mt, body, fmt.Sprintf("response of %s (%d, %s)", name, status, mt))
}

// ValidateSchema validates body (JSON) against the named component schema
// ("Problem").
func (s *Spec) ValidateSchema(component string, body []byte) error {
	return s.validate("#/components/schemas/"+escape(component), "application/json", body, "body")
}

// Compile compiles the schema at ptr, a JSON pointer into the document
// ("#/components/schemas/Memory"), reporting a $ref that does not resolve
// or a schema that is not valid JSON Schema 2020-12.
func (s *Spec) Compile(ptr string) error {
	_, err := s.schema(ptr)
	return err
}

func (s *Spec) validate(ptr, mediaType string, body []byte, what string) error {
	sch, err := s.schema(ptr)
	if err != nil {
		return err
	}
	var v any
	if mediaType == "application/json" || strings.HasSuffix(mediaType, "+json") {
		if v, err = jsonschema.UnmarshalJSON(bytes.NewReader(body)); err != nil {
			return fmt.Errorf("%s is not JSON: %v", what, err)
		}
	} else {
		v = string(body)
	}
	if err := sch.Validate(v); err != nil {
		return fmt.Errorf("%s does not match schema %s: %v", what, schemaName(s.Doc, ptr), err)
	}
	return nil
}

func (s *Spec) schema(ptr string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sch, ok := s.schemas[ptr]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(docURL + ptr)
	if err != nil {
		return nil, fmt.Errorf("schema %s: %v", ptr, err)
	}
	s.schemas[ptr] = sch
	return sch, nil
}

// response returns the response object of an operation's status, following
// a $ref to components/responses, and its JSON pointer.
func (s *Spec) response(method, path, status string) (map[string]any, string, error) {
	name := method + " " + path
	paths, _ := s.Doc["paths"].(map[string]any)
	item, ok := paths[path].(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("route %s is served but not in the spec (no path %s)", name, path)
	}
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		return nil, "", fmt.Errorf("route %s is served but not in the spec (path %s has no %s)", name, path, method)
	}
	responses, _ := op["responses"].(map[string]any)
	resp, ok := responses[status].(map[string]any)
	ptr := "#/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/" + status
	if !ok {
		if resp, ok = responses["default"].(map[string]any); !ok {
			return nil, "", fmt.Errorf("%s answered %s, a status the spec does not document for it (documented: %s)",
				name, status, strings.Join(keys(responses), ", "))
		}
		ptr = "#/paths/" + escape(path) + "/" + strings.ToLower(method) + "/responses/default"
	}
	if ref, ok := resp["$ref"].(string); ok {
		target, err := s.Resolve(ref)
		if err != nil {
			return nil, "", fmt.Errorf("%s (%s): %v", name, status, err)
		}
		resp, _ = target.(map[string]any)
		ptr = ref
	}
	return resp, ptr, nil
}

// Resolve returns the value a local $ref ("#/components/...") points to.
func (s *Spec) Resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("$ref %q is not local to the document", ref)
	}
	var cur any = s.Doc
	for _, tok := range strings.Split(ref[2:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve (at %q)", ref, tok)
		}
		if cur, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve (no %q)", ref, tok)
		}
	}
	return cur, nil
}

// schemaName names the schema at ptr for a message: its component name
// when it is a $ref to one, else the pointer.
func schemaName(doc map[string]any, ptr string) string {
	s := &Spec{Doc: doc}
	if v, err := s.Resolve(ptr); err == nil {
		if m, ok := v.(map[string]any); ok {
			if ref, ok := m["$ref"].(string); ok {
				return strings.TrimPrefix(ref, "#/components/schemas/")
			}
		}
	}
	return strings.TrimPrefix(ptr, "#/components/schemas/")
}

// escape escapes a JSON pointer token.
func escape(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// CompileAndValidate validates body (JSON) against the schema at ptr, a
// JSON pointer into the document.
func (s *Spec) CompileAndValidate(ptr string, body []byte) error {
	return s.validate(ptr, "application/json", body, "body")
}

// ValidateHeaders checks a real response's headers against the headers
// the spec documents for the operation's status: a header marked required
// must be present, and each documented header that is present must match
// its schema (a string schema; its pattern and enum apply).
func (s *Spec) ValidateHeaders(method, path string, status int, h http.Header) error {
	resp, ptr, err := s.response(method, path, strconv.Itoa(status))
	if err != nil {
		return err
	}
	headers, _ := resp["headers"].(map[string]any)
	var errs []string
	for _, name := range keys(headers) {
		def, _ := headers[name].(map[string]any)
		hptr := ptr + "/headers/" + escape(name)
		if ref, ok := def["$ref"].(string); ok {
			v, err := s.Resolve(ref)
			if err != nil {
				return err
			}
			def, _ = v.(map[string]any)
			hptr = ref
		}
		v := h.Values(name)
		if len(v) == 0 {
			if req, _ := def["required"].(bool); req {
				errs = append(errs, fmt.Sprintf("header %s is required but absent", name))
			}
			continue
		}
		sch, ok := def["schema"].(map[string]any)
		if !ok || (sch["type"] != "string" && sch["$ref"] == nil) {
			continue // only string schemas are checked
		}
		body, _ := json.Marshal(v[0])
		if err := s.validate(hptr+"/schema", "application/json", body, "header "+name); err != nil {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("response headers of %s %s (%d): %s", method, path, status, strings.Join(errs, "; "))
	}
	return nil
}
