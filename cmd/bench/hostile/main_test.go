package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
)

// TestHostileFilesFailAlone runs the benchmark at a tiny size on the
// hashing embedder. It asserts no latency: only that every hostile file
// failed with a reason that says why, the ordinary document beside them
// was indexed, and tenant B's searches all answered.
func TestHostileFilesFailAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("serves the API and loads hostile files")
	}
	env := func(k string) string {
		if k == "EMBEDDER" {
			return "hash"
		}
		return os.Getenv(k)
	}
	res, err := Run(context.Background(), Options{Memories: 120, Queries: 10, Hostile: 2, Rounds: 1}, env, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	Print(&b, res)
	t.Log("\n" + b.String())
	if len(res.Phases) != 2 || len(res.Documents) != 5 {
		t.Fatalf("phases %d, documents %d, want 2 and 5", len(res.Phases), len(res.Documents))
	}
	for _, p := range res.Phases {
		if p.Errors != 0 {
			t.Fatalf("tenant B's searches failed %s: %+v", p.Name, p)
		}
	}
	for _, d := range res.Documents {
		switch {
		case !d.Hostile && (d.State != "indexed" || d.Status != 201):
			t.Fatalf("the ordinary document did not index: %+v", d)
		case d.Hostile && (d.State != "failed" || d.Status/100 != 4 || !strings.HasPrefix(d.Reason, d.Name+": ")):
			t.Fatalf("a hostile document did not fail with a reason naming it: %+v", d)
		case strings.HasSuffix(d.Name, ".pdf") && d.Hostile && !strings.Contains(d.Reason, "cyclic"):
			t.Fatalf("the cyclic PDF failed for another reason: %q", d.Reason)
		case strings.HasSuffix(d.Name, ".docx") && !strings.Contains(d.Reason, "Max"):
			t.Fatalf("the DOCX bomb's reason names no limit: %q", d.Reason)
		}
	}
}
