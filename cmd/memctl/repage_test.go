package main

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestRepage runs `memctl repage` on a data directory whose database an
// earlier version made with 4 KiB pages: it refuses while a backend has
// the directory open, rewrites it once stopped, has nothing to do the
// second time, and the memories are all there after. An argument, and
// another backend than the embedded one, are refused by name.
func TestRepage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	t.Setenv("DATA_DIR", dir)
	t.Setenv("BACKEND", "embedded")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, local.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA page_size = 4096", "PRAGMA journal_mode = WAL", "CREATE TABLE before (x)"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	acme := memory.Caller{OrgID: "acme"}
	b, err := local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Service.Create(ctx, acme, []service.NewMemory{
		{Content: memory.Content{Text: "Ana loves fencing"}},
		{Content: memory.Content{Text: "Bo climbs in Lisbon"}, AgentID: "bot"},
	}); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name     string
		args     []string
		before   func()
		want     string // in the output
		wantCode string // of the error
	}{
		{"while the backend runs", nil, nil, "", memory.EUNAVAILABLE},
		{"once it stopped", nil, func() { b.Close() }, "pages of 4096 → 16384 bytes", ""},
		{"again", nil, nil, "already has pages of 16384 bytes", ""},
	}
	for _, st := range steps {
		if st.before != nil {
			st.before()
		}
		var out bytes.Buffer
		err := repage(ctx, st.args, &out)
		if memory.ErrorCode(err) != st.wantCode || st.wantCode == "" && err != nil {
			t.Fatalf("%s: %v, want code %q", st.name, err, st.wantCode)
		}
		if !strings.Contains(out.String(), st.want) {
			t.Fatalf("%s: said %q, want %q", st.name, out.String(), st.want)
		}
	}

	after, err := local.Open(ctx, dir, hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer after.Close()
	if n, err := after.Service.Count(ctx, acme, memory.Filter{}); err != nil || n != 2 {
		t.Fatalf("after the rewrite: %d memories (%v), want 2", n, err)
	}

	if err := repage(ctx, []string{"other.db"}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "no arguments") {
		t.Fatalf("an argument: %v, want a refusal naming it", err)
	}
	t.Setenv("BACKEND", "aws")
	if err := repage(ctx, nil, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "BACKEND=aws") {
		t.Fatalf("BACKEND=aws: %v, want a refusal naming it", err)
	}
}
