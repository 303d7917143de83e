package layers

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// Graph maps each package, by import path, to the packages it imports.
type Graph map[string][]string

// List returns the import graph go list -deps gives for patterns, without
// test imports, run with env added to this process's environment
// (GOOS=linux, say) and the build flags in flags (-tags lambda.norpc).
func List(dir string, env, flags []string, patterns ...string) (Graph, error) {
	args := append([]string{"list", "-deps"}, flags...)
	args = append(args, "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}")
	cmd := exec.Command("go", append(args, patterns...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		return nil, fmt.Errorf("go list: %w\n%s", err, stderr)
	}
	g := Graph{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		g[f[0]] = f[1:]
	}
	return g, nil
}

// Reach returns every package root reaches, each with the package that
// first imports it on a shortest path from root ("" for root).
func (g Graph) Reach(root string) map[string]string {
	parent := map[string]string{root: ""}
	for queue := []string{root}; len(queue) > 0; queue = queue[1:] {
		for _, q := range g[queue[0]] {
			if _, seen := parent[q]; !seen {
				parent[q] = queue[0]
				queue = append(queue, q)
			}
		}
	}
	return parent
}

// Path renders how the root of parent (a Reach result) reaches p, each
// package without the prefix trim.
func Path(parent map[string]string, p, trim string) string {
	var hops []string
	for ; p != ""; p = parent[p] {
		hops = append(hops, strings.TrimPrefix(p, trim))
	}
	slices.Reverse(hops)
	return strings.Join(hops, " -> ")
}
