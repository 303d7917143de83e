package layers_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// libraryPackages returns the module's packages under pkg/, as go list
// sees them.
func libraryPackages(t *testing.T) []string {
	t.Helper()
	var out []string
	for p := range moduleGraph(t) {
		if strings.HasPrefix(p, "pkg/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// readDoc reads a file of the module by its path from the module root.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fence returns the lines of the first fenced block after the first line
// of doc that contains marker.
func fence(t *testing.T, doc, marker string) []string {
	t.Helper()
	i := strings.Index(doc, marker)
	if i < 0 {
		t.Fatalf("no %q", marker)
	}
	rest := doc[i:]
	start := strings.Index(rest, "\n```")
	if start < 0 {
		t.Fatalf("no fenced block after %q", marker)
	}
	rest = rest[start+4:]
	rest = rest[strings.Index(rest, "\n")+1:] // the fence's info string
	end := strings.Index(rest, "\n```")
	if end < 0 {
		t.Fatalf("the block after %q is not closed", marker)
	}
	return strings.Split(rest[:end], "\n")
}

// compare reports the packages named but not listed by go list (extra) and
// those listed but not named (missing).
func compare(t *testing.T, where string, named map[string]bool, pkgs []string) {
	t.Helper()
	var missing, extra []string
	for _, p := range pkgs {
		if !named[p] {
			missing = append(missing, p)
		}
	}
	for p := range named {
		if !slices.Contains(pkgs, p) {
			extra = append(extra, p)
		}
	}
	sort.Strings(extra)
	if len(missing) > 0 {
		t.Errorf("%s misses packages of go list ./pkg/...: %s", where, strings.Join(missing, " "))
	}
	if len(extra) > 0 {
		t.Errorf("%s names packages go list ./pkg/... does not list: %s", where, strings.Join(extra, " "))
	}
}

// TestReadmeTreeListsEveryPackage holds the README's tree, one line per
// package, to the packages under pkg/: each once, none that is gone.
func TestReadmeTreeListsEveryPackage(t *testing.T) {
	lines := fence(t, readDoc(t, "README.md"), "tree, one line per package")
	named := map[string]bool{}
	seen := map[string]bool{}
	for _, line := range lines {
		for _, name := range treeNames(line) {
			if seen[name] {
				t.Errorf("README tree: %s is listed twice", name)
			}
			seen[name] = true
			if strings.HasPrefix(name, "pkg/") {
				named[name] = true
			}
		}
	}
	compare(t, "README tree", named, libraryPackages(t))
}

// treeNames returns the paths a line of the tree starts with: one, or
// several joined by ", " ("pkg/wiring/ingestion/, pkg/wiring/extraction/"),
// without their trailing slash.
func treeNames(line string) []string {
	var out []string
	for _, f := range strings.Fields(line) {
		name, more := strings.CutSuffix(f, ",")
		if !strings.HasSuffix(name, "/") {
			break
		}
		out = append(out, strings.TrimSuffix(name, "/"))
		if !more {
			break
		}
	}
	return out
}

// The rows of the architecture's layer diagram, by their label, and the
// layer of the layer test each stands for.
var diagramRows = map[string]string{
	"entry points":      entry,
	"composition roots": wiring,
	"transports":        transport,
	"pipelines":         pipeline,
	"use cases":         useCase,
	"domain":            domain,
	"adapters":          adapter,
	"support":           support,
	"client":            client,
}

var pkgName = regexp.MustCompile(`pkg/[A-Za-z0-9_/{},.-]*[A-Za-z0-9_}]`)

// TestArchitectureDiagramNamesEveryPackage holds the layer diagram of
// docs/architecture.md to the packages under pkg/, and each package to the
// row of its layer (the layers of TestImportsPointDownTheLayers).
func TestArchitectureDiagramNamesEveryPackage(t *testing.T) {
	lines := fence(t, readDoc(t, "docs/architecture.md"), "## Layers")
	named := map[string]bool{}
	row := ""
	for _, line := range lines {
		if line != "" && line[0] != ' ' {
			label, _, _ := strings.Cut(line, "  ")
			if _, ok := diagramRows[label]; !ok {
				t.Errorf("architecture diagram: row %q is not one of the layers", label)
			}
			row = label
		}
		for _, m := range pkgName.FindAllString(line, -1) {
			for _, p := range expand(m) {
				p = strings.TrimSuffix(p, "/")
				named[p] = true
				if l, ok := layerOf(p); ok && diagramRows[row] != l.name {
					t.Errorf("architecture diagram: %s is on the %q row, but it is in the %s layer", p, row, l.name)
				}
			}
		}
	}
	compare(t, "architecture diagram", named, libraryPackages(t))
}

// expand expands the braces of a path: "pkg/{a,b/c}" is pkg/a and pkg/b/c.
func expand(s string) []string {
	open := strings.Index(s, "{")
	if open < 0 {
		return []string{s}
	}
	depth, end := 0, -1
	var parts []string
	last := open + 1
	for i := open; i < len(s) && end < 0; i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				parts, end = append(parts, s[last:i]), i
			}
		case ',':
			if depth == 1 {
				parts, last = append(parts, s[last:i]), i+1
			}
		}
	}
	if end < 0 {
		return []string{s}
	}
	var out []string
	for _, p := range parts {
		out = append(out, expand(s[:open]+p+s[end+1:])...)
	}
	return out
}

func TestExpand(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"pkg/memory", []string{"pkg/memory"}},
		{"pkg/store/{sqlite,dynamodb}", []string{"pkg/store/sqlite", "pkg/store/dynamodb"}},
		{"pkg/{a,b/{c,d}}/x", []string{"pkg/a/x", "pkg/b/c/x", "pkg/b/d/x"}},
	}
	for _, tc := range tests {
		if got := expand(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("expand(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestTreeNames(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"pkg/memory/             the vocabulary", []string{"pkg/memory"}},
		{"pkg/wiring/ingestion/, pkg/wiring/extraction/  each builds", []string{"pkg/wiring/ingestion", "pkg/wiring/extraction"}},
		{"   a continued description/", nil},
	}
	for _, tc := range tests {
		if got := treeNames(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("treeNames(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
