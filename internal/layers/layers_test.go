package layers_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/layers"
)

const mod = "github.com/agentmem/agentmem/"

// A layer is a set of packages, named by go list patterns relative to the
// module ("x" is x alone, "x/..." is x and every package below it), and
// the layers its packages may reach, directly or not. A package belongs to
// the layer of its most specific pattern (the longest; an exact name before
// a subtree of the same name).
type layer struct {
	name string
	pkgs []string
	may  []string
}

// Layer names.
const (
	domain    = "domain"
	support   = "support"
	adapter   = "adapter"
	useCase   = "use case"
	pipeline  = "pipeline"
	transport = "transport"
	client    = "client"
	wiring    = "wiring"
	entry     = "entry point"
)

// rows is the rule docs/architecture.md draws, layer by layer. There is no
// exception list: a package that needs one belongs in another layer, or its
// import does.
var rows = []layer{
	// The domain: the vocabulary and the ports, and the English its rules
	// are written in (pkg/text: the terms a knowledge ref is indexed under
	// leave out its TermStopWord), which imports nothing of the project.
	{domain, []string{"pkg/memory", "pkg/text/..."}, []string{domain}},
	// Support: helpers with no project role, the telemetry vocabulary its
	// exporters implement, the contract suites adapters run and the kit
	// the term-index adapters share.
	{support, []string{"internal/...", "pkg/telemetry", "pkg/memory/memorytest", "pkg/memory/termkit", "pkg/pipeline/ingest/ingesttest"},
		[]string{domain, support}},
	// Adapters may also reach their own subtree (pkg/store/dynamodb/schema):
	// see sameAdapter.
	{adapter, []string{"pkg/store/...", "pkg/index/...", "pkg/embed/...", "pkg/llm/...", "pkg/rerank/...", "pkg/blob/...",
		"pkg/queue/...", "pkg/telemetry/...", "pkg/auth/secretsmanager"},
		[]string{domain, support}},
	{useCase, []string{"pkg/service/...", "pkg/retrieval/...", "pkg/knowledge/...", "pkg/auth/...", "pkg/registry/...", "pkg/workstream/..."},
		[]string{domain, support, useCase}},
	// Pipelines declare what they use of the service as an interface of
	// their own (service.Worker is one): they import no use case.
	{pipeline, []string{"pkg/pipeline/..."},
		[]string{domain, support, pipeline}},
	{transport, []string{"pkg/transport/..."},
		[]string{domain, support, useCase, pipeline, transport}},
	// The Go client is another program's library: it shares support only.
	{client, []string{"pkg/client/..."}, []string{support}},
	// Only the composition roots and the entry points assemble.
	{wiring, []string{"pkg/wiring/..."},
		[]string{domain, support, adapter, useCase, pipeline, transport, wiring}},
	{entry, []string{"cmd/...", "functions/...", "localstack/..."},
		[]string{domain, support, adapter, useCase, pipeline, transport, client, wiring}},
}

// layerOf returns the layer of the module package p (relative name).
func layerOf(p string) (layer, bool) {
	var best layer
	bestLen, found := -1, false
	for _, l := range rows {
		for _, pat := range l.pkgs {
			base, tree := strings.CutSuffix(pat, "/...")
			n := 2 * len(base)
			if !tree {
				n++ // the exact name is more specific than its subtree
			}
			if (p == base || tree && strings.HasPrefix(p, base+"/")) && n > bestLen {
				best, bestLen, found = l, n, true
			}
		}
	}
	return best, found
}

// sameAdapter reports whether adapter packages p and q are one adapter:
// the same pkg/<port>/<name> subtree.
func sameAdapter(p, q string) bool {
	root := func(s string) string {
		f := strings.SplitN(s, "/", 4)
		return strings.Join(f[:min(3, len(f))], "/")
	}
	return root(p) == root(q)
}

func TestImportsPointDownTheLayers(t *testing.T) {
	g := moduleGraph(t)
	var names []string
	for p := range g {
		names = append(names, p)
	}
	sort.Strings(names)
	if len(names) < 20 {
		t.Fatalf("go list found %d packages of the module: %v", len(names), names)
	}
	for _, p := range names {
		lp, ok := layerOf(p)
		if !ok {
			t.Errorf("%s is in no layer: add it to one in layers (and to docs/architecture.md)", p)
			continue
		}
		parent := g.Reach(p)
		var reached []string
		for q := range parent {
			reached = append(reached, q)
		}
		sort.Strings(reached)
		for _, q := range reached {
			if q == p {
				continue
			}
			lq, ok := layerOf(q)
			if !ok || slices.Contains(lp.may, lq.name) || lp.name == adapter && lq.name == adapter && sameAdapter(p, q) {
				continue
			}
			t.Errorf("%s (%s) reaches %s (%s): %s", p, lp.name, q, lq.name, layers.Path(parent, q, ""))
		}
	}
}

// TestLayerOf pins the classification the rule depends on.
func TestLayerOf(t *testing.T) {
	tests := []struct{ pkg, want string }{
		{"pkg/memory", domain},
		{"pkg/memory/memorytest", support},
		{"pkg/memory/termkit", support},
		{"pkg/telemetry", support},
		{"pkg/telemetry/emf", adapter},
		{"pkg/store/dynamodb/schema", adapter},
		{"pkg/knowledge/query", useCase},
		{"pkg/knowledge/related", useCase},
		{"pkg/pipeline/ingest", pipeline},
		{"pkg/pipeline/ingest/ingesttest", support},
		{"pkg/transport/contract", transport},
		{"pkg/wiring/aws", wiring},
		{"cmd/bench/load", entry},
		{"internal/config", support},
		{"pkg/client", client},
		{"pkg/text/en", domain},
	}
	for _, tc := range tests {
		l, ok := layerOf(tc.pkg)
		if !ok || l.name != tc.want {
			t.Errorf("layerOf(%s) = %q, %v; want %q", tc.pkg, l.name, ok, tc.want)
		}
	}
	if _, ok := layerOf("pkg/newthing"); ok {
		t.Error("an unlisted package has a layer")
	}
	for _, tc := range []struct {
		p, q string
		want bool
	}{
		{"pkg/store/dynamodb", "pkg/store/dynamodb/schema", true},
		{"pkg/store/dynamodb", "pkg/store/sqlite", false},
		{"pkg/rerank/llm", "pkg/llm/bedrock", false},
	} {
		if got := sameAdapter(tc.p, tc.q); got != tc.want {
			t.Errorf("sameAdapter(%s, %s) = %v", tc.p, tc.q, got)
		}
	}
}

// moduleGraph lists the non-test imports of every package of the module,
// as the default build sees them, by names relative to the module, keeping
// only the module's own packages.
func moduleGraph(t *testing.T) layers.Graph {
	t.Helper()
	full, err := layers.List(".", nil, nil, mod+"...")
	if err != nil {
		t.Fatal(err)
	}
	g := layers.Graph{}
	for p, imports := range full {
		p, ok := strings.CutPrefix(p, mod)
		if !ok {
			continue
		}
		g[p] = nil
		for _, q := range imports {
			if q, ok := strings.CutPrefix(q, mod); ok {
				g[p] = append(g[p], q)
			}
		}
	}
	return g
}
