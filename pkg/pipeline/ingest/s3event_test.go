package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestFileFetch(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "acme", "_org"), 0o755)
	os.WriteFile(filepath.Join(dir, "acme", "_org", "notes.txt"), []byte("acme's notes"), 0o644)
	os.WriteFile(filepath.Join(dir, "x.txt"), []byte("outside any tenant"), 0o644)
	fetch := FileFetch(dir)
	tests := []struct {
		key  string
		want string // "" for ENOTFOUND
	}{
		{"acme/_org/notes.txt", "acme's notes"},
		{"acme/../x.txt", ""},
		{"acme/_org/../../x.txt", ""},
		{"acme//_org/notes.txt", ""},
		{"./acme/_org/notes.txt", ""},
		{`acme\_org\notes.txt`, ""},
		{"acme/_org/missing.txt", ""},
	}
	for _, tc := range tests {
		data, _, err := fetch(context.Background(), "bucket", tc.key)
		if tc.want == "" {
			if !memory.IsNotFound(err) {
				t.Errorf("%q: want ENOTFOUND, got %q, %v", tc.key, data, err)
			}
			continue
		}
		if err != nil || string(data) != tc.want {
			t.Errorf("%q: got %q, %v", tc.key, data, err)
		}
	}
}
