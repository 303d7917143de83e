package contract_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/transport/contract/contracttest"
)

func loadSpec(t *testing.T) *contracttest.Spec {
	t.Helper()
	s, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOpenAPIProblemCodesAreTheErrorTable: the problem schema's code enum
// is exactly the codes of the error table, and each problem type is the
// table's URN prefix.
func TestOpenAPIProblemCodesAreTheErrorTable(t *testing.T) {
	s := loadSpec(t)
	v, err := s.Resolve("#/components/schemas/Problem/properties/code/enum")
	if err != nil {
		t.Fatal(err)
	}
	inSpec := map[string]bool{}
	for _, c := range v.([]any) {
		inSpec[c.(string)] = true
	}
	inTable := map[string]bool{}
	for _, k := range contract.Errors {
		inTable[k.Code] = true
		if !inSpec[k.Code] {
			t.Errorf("code %q is in the error table (transport/contract/errors.go) but not in the spec's Problem.code enum", k.Code)
		}
	}
	for c := range inSpec {
		if !inTable[c] {
			t.Errorf("code %q is in the spec's Problem.code enum but not in the error table (transport/contract/errors.go)", c)
		}
	}
	pattern, err := s.Resolve("#/components/schemas/Problem/properties/type/pattern")
	if err != nil {
		t.Fatal(err)
	}
	if want := "^" + contract.ProblemTypeBase; !strings.HasPrefix(pattern.(string), want) {
		t.Errorf("Problem.type pattern %q does not start with %q (contract.ProblemTypeBase)", pattern, want)
	}
	// A problem the table would produce validates against the schema.
	for _, k := range contract.Errors {
		body, _ := json.Marshal(map[string]any{"type": contract.ProblemTypeBase + k.Code, "title": k.Title,
			"status": k.Status, "detail": "x: y", "instance": "/v1/memories", "code": k.Code, "requestId": "r1"})
		if err := s.ValidateSchema("Problem", body); err != nil {
			t.Errorf("the problem of code %q: %v", k.Code, err)
		}
	}
}

// TestOpenAPIErrorStatusesAreTheTable: every error status an operation
// documents is the status of some code of the table, and every error
// response is a problem.
func TestOpenAPIErrorStatusesAreTheTable(t *testing.T) {
	s := loadSpec(t)
	statuses := map[int]bool{}
	for _, k := range contract.Errors {
		statuses[k.Status] = true
	}
	for _, o := range s.Operations() {
		for _, st := range o.Statuses {
			n, err := strconv.Atoi(st)
			if err != nil {
				t.Errorf("%s: response %q is not a status", o, st)
				continue
			}
			if n < 400 {
				continue
			}
			if !statuses[n] {
				t.Errorf("%s documents %d, which no code of the error table answers", o, n)
			}
			// An error answers a problem with the code of its status.
			for _, k := range contract.Errors {
				if k.Status != n {
					continue
				}
				body, _ := json.Marshal(map[string]any{"type": contract.ProblemTypeBase + k.Code, "title": k.Title, "status": n, "code": k.Code})
				if err := s.ValidateResponse(o.Method, o.Path, n, "application/problem+json", body); err != nil {
					t.Errorf("%v", err)
				}
			}
		}
	}
}

// TestOpenAPIOperations: each operation has a unique operationId, a
// summary, and grants that are grant names; a public one has none, every
// other one exactly one; x-agentmem-no-client, when present, gives its
// reason.
func TestOpenAPIOperations(t *testing.T) {
	s := loadSpec(t)
	if v, _ := s.Doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi %q, want 3.1.x", v)
	}
	names := map[string]bool{}
	for _, g := range memory.GrantNames {
		names[g.Name] = true
	}
	ids := map[string]string{}
	ops := s.Operations()
	if len(ops) == 0 {
		t.Fatal("the spec has no operations")
	}
	for _, o := range ops {
		if o.ID == "" {
			t.Errorf("%s has no operationId", o)
		} else if prev, ok := ids[o.ID]; ok {
			t.Errorf("%s and %s share operationId %q", prev, o, o.ID)
		}
		ids[o.ID] = o.String()
		for _, g := range o.Grants {
			if !names[g] {
				t.Errorf("%s: x-agentmem-grants names %q, not a grant (%v)", o, g, memory.AllGrants.Names())
			}
		}
		switch {
		case o.Public && len(o.Grants) != 0:
			t.Errorf("%s is public (security: []) but names grants %v", o, o.Grants)
		case o.AnyKey && (o.Public || len(o.Grants) != 0):
			t.Errorf("%s is x-agentmem-any-key: it needs a key (no security: []) and names no grant, has %v", o, o.Grants)
		case !o.Public && !o.AnyKey && len(o.Grants) != 1:
			t.Errorf("%s needs a key: x-agentmem-grants must name its one grant, has %v", o, o.Grants)
		}
		op, _ := s.Resolve("#/paths/" + strings.ReplaceAll(o.Path, "/", "~1") + "/" + strings.ToLower(o.Method))
		m, _ := op.(map[string]any)
		if m["summary"] == nil || m["description"] == nil {
			t.Errorf("%s needs a summary and a description", o)
		}
		if v, ok := m["x-agentmem-no-client"]; ok && o.NoClient == "" {
			t.Errorf("%s: x-agentmem-no-client is %v; it must be the reason the clients have no method, a non-empty string", o, v)
		}
	}
}

// TestOpenAPISchemasCompile: every schema of the document (the components
// and each parameter, request and response media type) is valid JSON
// Schema 2020-12 whose $refs resolve, and every other $ref resolves.
func TestOpenAPISchemasCompile(t *testing.T) {
	s := loadSpec(t)
	var ptrs, refs []string
	walk(s.Doc, "#", func(ptr string, m map[string]any) {
		if ref, ok := m["$ref"].(string); ok {
			refs = append(refs, ptr+" -> "+ref)
			if _, err := s.Resolve(ref); err != nil {
				t.Errorf("%s: %v", ptr, err)
			}
		}
		if _, ok := m["schema"].(map[string]any); ok && !strings.Contains(ptr, "/properties/") {
			ptrs = append(ptrs, ptr+"/schema")
		}
	})
	schemas, _ := s.Doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name := range schemas {
		ptrs = append(ptrs, "#/components/schemas/"+name)
	}
	sort.Strings(ptrs)
	for _, p := range ptrs {
		if err := s.Compile(p); err != nil {
			t.Errorf("%v", err)
		}
	}
	if len(ptrs) < len(schemas) || len(refs) == 0 {
		t.Fatalf("walked %d schemas and %d refs: the walk is broken", len(ptrs), len(refs))
	}
}

// TestOpenAPIExamplesMatchSchemas: every example of a media type or a
// parameter validates against its schema.
func TestOpenAPIExamplesMatchSchemas(t *testing.T) {
	s := loadSpec(t)
	n := 0
	walk(s.Doc, "#", func(ptr string, m map[string]any) {
		if _, ok := m["schema"].(map[string]any); !ok {
			return
		}
		var examples []any
		if ex, ok := m["example"]; ok {
			examples = append(examples, ex)
		}
		if exs, ok := m["examples"].(map[string]any); ok {
			for _, ex := range exs {
				if v, ok := ex.(map[string]any)["value"]; ok {
					examples = append(examples, v)
				}
			}
		}
		for i, ex := range examples {
			n++
			b, _ := json.Marshal(ex)
			if err := s.CompileAndValidate(ptr+"/schema", b); err != nil {
				t.Errorf("example %d of %s: %v", i, ptr, err)
			}
		}
	})
	if n == 0 {
		t.Fatal("found no examples: the walk is broken")
	}
}

// walk calls fn for every object of v, with its JSON pointer.
func walk(v any, ptr string, fn func(string, map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		fn(ptr, x)
		for k, c := range x {
			walk(c, ptr+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), fn)
		}
	case []any:
		for i, c := range x {
			walk(c, fmt.Sprintf("%s/%d", ptr, i), fn)
		}
	}
}

// TestErrorStatusesAreHTTP keeps the table's statuses real HTTP statuses
// (the spec's response keys are built from them).
func TestErrorStatusesAreHTTP(t *testing.T) {
	for _, k := range contract.Errors {
		if http.StatusText(k.Status) == "" || k.Status < 400 {
			t.Errorf("code %q: status %d is not an HTTP error status", k.Code, k.Status)
		}
	}
}
