package layers_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a production function may span, from
// its func keyword to its closing brace.
const maxFuncLines = 150

// splitLater are the functions over maxFuncLines in files other engineers
// are changing now, to split when those changes land (path: name). The
// test fails when one of them is no longer over, so the list only
// shrinks. It is empty: every production function is within the limit.
var splitLater []string

// longFunctions returns, for every production Go file of the repository
// (the module, the infra module, the Lambdas and binaries; not tests, test
// data, or the contract-suite packages whose names end in "test", which
// only tests import), the functions longer than max, as "path: name"
// with their length.
func longFunctions(t *testing.T, root string, max int) map[string]int {
	t.Helper()
	fset := token.NewFileSet()
	out := map[string]int{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata" || n == "vendor" ||
				strings.HasSuffix(n, "test")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > max {
				name := fd.Name.Name
				if fd.Recv != nil && len(fd.Recv.List) == 1 {
					name = recvName(fd.Recv.List[0].Type) + "." + name
				}
				out[filepath.ToSlash(rel)+": "+name] = n
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// recvName is the type name of a method's receiver.
func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

// TestNoLongFunctions holds every production function to maxFuncLines:
// a longer one is split by its natural steps.
func TestNoLongFunctions(t *testing.T) {
	long := longFunctions(t, filepath.Join("..", ".."), maxFuncLines)
	var over []string
	for fn, n := range long {
		if !slices.Contains(splitLater, fn) {
			over = append(over, fmt.Sprintf("%s (%d lines)", fn, n))
		}
	}
	sort.Strings(over)
	for _, fn := range over {
		t.Errorf("%s is over %d lines: split it by its steps", fn, maxFuncLines)
	}
	for _, fn := range splitLater {
		if _, ok := long[fn]; !ok {
			t.Errorf("%s is no longer over %d lines (or is gone): take it off splitLater", fn, maxFuncLines)
		}
	}
}

// TestLongFunctionsCounts pins the count on this file's own functions.
func TestLongFunctionsCounts(t *testing.T) {
	long := longFunctions(t, ".", 30)
	if len(long) != 0 {
		t.Errorf("non-test files of internal/layers with functions over 30 lines: %v", long)
	}
	// graph.go's List is over 10 lines (21), and the test files, with
	// longer functions, are skipped.
	long = longFunctions(t, ".", 10)
	if _, ok := long["graph.go: List"]; !ok || len(long) == 0 {
		t.Errorf("functions over 10 lines: %v; want graph.go: List among them", long)
	}
	for fn := range long {
		if strings.Contains(fn, "_test.go") {
			t.Errorf("a test file was counted: %s", fn)
		}
	}
}
