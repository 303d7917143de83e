package client_test

import (
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/agentmem/agentmem/pkg/client"
	"github.com/agentmem/agentmem/pkg/transport/contract/contracttest"
)

// Every operation of the OpenAPI document has a method of Client, except
// those the document marks x-agentmem-no-client (a page, a script, MCP).
// An operation's method is its operationId in Go's style (goMethod): the
// id capitalised, with the verbs of goVerbs rewritten, unless goAliases
// names it otherwise. The Python (clients/python/tests/test_coverage.py)
// and TypeScript (clients/typescript/test/coverage.test.ts) clients keep
// the same rule in their own styles.

// goVerbs rewrite an operationId's leading verb as Go names it: a getter
// has no Get (Entity), a listing is its plural noun (Entities), and a
// PATCH is an Update (UpdateEntity).
var goVerbs = []struct{ verb, method string }{
	{"get", ""},
	{"list", ""},
	{"patch", "Update"},
}

// goAliases are the operations whose method is named otherwise, each with
// its reason. The memory operations use the client's short verbs:
// memories are its own noun.
var goAliases = map[string]string{
	"health":                "Healthz",        // after its path, /v1/healthz
	"openapi":               "OpenAPI",        // Go's initialism
	"createMemories":        "Create",         // memories are the client's noun (CreateBatch sends several)
	"listMemories":          "List",           // one page; Memories iterates over all of them
	"countMemories":         "Count",          // memories are the client's noun
	"deleteMemories":        "DeleteWhere",    // deletes what a filter selects, beside Delete of one id
	"getMemory":             "Get",            // memories are the client's noun
	"patchMemory":           "Update",         // memories are the client's noun
	"deleteMemory":          "Delete",         // memories are the client's noun
	"putMemoryByKey":        "PutByKey",       // memories are the client's noun
	"getMemoryByKey":        "GetByKey",       // as PutByKey
	"deleteMemoryByKey":     "DeleteByKey",    // as PutByKey
	"memoryRelations":       "Relations",      // memories are the client's noun
	"archiveMemory":         "Archive",        // memories are the client's noun
	"restoreMemory":         "Restore",        // memories are the client's noun
	"exportMemories":        "Export",         // memories are the client's noun
	"importMemories":        "Import",         // memories are the client's noun
	"createDocument":        "UploadDocument", // the client sends the document's bytes
	"appendWorkstreamEntry": "AppendEntry",    // the workstream is its first argument
}

// goMethod is the name of operationId's method in the Go client.
func goMethod(id string) string {
	if m, ok := goAliases[id]; ok {
		return m
	}
	for _, v := range goVerbs {
		rest, ok := strings.CutPrefix(id, v.verb)
		if ok && rest != "" && unicode.IsUpper(rune(rest[0])) {
			return v.method + rest
		}
	}
	return strings.ToUpper(id[:1]) + id[1:]
}

// TestEveryOperationHasAMethod lists the operations without a method.
func TestEveryOperationHasAMethod(t *testing.T) {
	sp, err := contracttest.Load()
	if err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeFor[*client.Client]()
	ids := map[string]bool{}
	var missing []string
	covered := 0
	for _, o := range sp.Operations() {
		ids[o.ID] = o.NoClient == ""
		if o.NoClient != "" {
			continue
		}
		if _, ok := typ.MethodByName(goMethod(o.ID)); !ok {
			missing = append(missing, o.ID+" ("+o.String()+"): want Client."+goMethod(o.ID))
			continue
		}
		covered++
	}
	sort.Strings(missing)
	t.Logf("%d operations with a method, %d missing", covered, len(missing))
	for _, m := range missing {
		t.Errorf("no method: %s", m)
	}
	for id := range goAliases {
		if !ids[id] {
			t.Errorf("goAliases names %q, which is not an operation the clients cover: drop it", id)
		}
	}
}

// TestGoMethod pins the naming rule.
func TestGoMethod(t *testing.T) {
	for _, tc := range []struct{ id, want string }{
		{"getEntity", "Entity"},
		{"listWorkstreams", "Workstreams"},
		{"patchRoom", "UpdateRoom"},
		{"createToken", "CreateToken"},
		{"whoami", "Whoami"},
		{"getMemory", "Get"},
		{"getter", "Getter"}, // a verb only when a word follows
	} {
		if got := goMethod(tc.id); got != tc.want {
			t.Errorf("goMethod(%q) = %q, want %q", tc.id, got, tc.want)
		}
	}
}
