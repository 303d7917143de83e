package ingest_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
)

// TestKeyIsTheUploadLayout: the key a submitted document gets is the one
// an upload of its name would have, and ParseKey gives its owner back.
func TestKeyIsTheUploadLayout(t *testing.T) {
	for _, tc := range []struct {
		owner memory.Caller
		name  string
		want  string
	}{
		{memory.Caller{OrgID: "acme"}, "handbook.md", "acme/_org/handbook.md"},
		{memory.Caller{OrgID: "acme", AgentID: "support"}, "guides/setup.md", "acme/support/guides/setup.md"},
	} {
		key := ingest.Key(tc.owner, tc.name)
		if key != tc.want {
			t.Errorf("Key(%+v, %q) = %q, want %q", tc.owner, tc.name, key, tc.want)
		}
		if got, err := ingest.ParseKey(key); err != nil || got != tc.owner {
			t.Errorf("ParseKey(%q) = %+v, %v, want %+v", key, got, err, tc.owner)
		}
	}
}

// TestSubmitAndDelete: a submitted document is the document an S3 upload
// of the same name is (same id, key and memories), and Delete holds the
// scope rule: an agent-bound caller without delete:org cannot delete an
// org-scope document, one of another agent is not found, and its owner's
// delete removes the document and its memories.
func TestSubmitAndDelete(t *testing.T) {
	e := setup(t)
	org := memory.Caller{OrgID: "acme"}
	agent := memory.Caller{OrgID: "acme", AgentID: "support"}
	submit := func(owner memory.Caller, name, text string) ingest.Status {
		st, err := e.pipe.Submit(ctx, owner, name, []byte(text))
		if err != nil {
			t.Fatalf("submit %s: %v", name, err)
		}
		return st
	}
	shared := submit(org, "handbook.md", "# Handbook\n\nThe office opens at nine and closes at six.")
	own := submit(agent, "notes/runbook.md", "# Runbook\n\nRestart the queue worker after a deploy.")
	if shared.Key != "acme/_org/handbook.md" || shared.ID != ingest.DocumentID("acme", shared.Key) || shared.State != ingest.StateIndexed {
		t.Fatalf("submitted: %+v", shared)
	}
	for _, tc := range []struct {
		name   string
		c      memory.Caller
		id     string
		code   string
		remove bool
	}{
		{"agent key on the org scope", agent, shared.ID, memory.EFORBIDDEN, false},
		{"another agent's document", memory.Caller{OrgID: "acme", AgentID: "sales"}, own.ID, memory.ENOTFOUND, false},
		{"another org", memory.Caller{OrgID: "globex"}, shared.ID, memory.ENOTFOUND, false},
		{"its agent", agent, own.ID, "", true},
		{"delete:org", memory.Caller{OrgID: "acme", AgentID: "support", Grants: memory.GrantDeleteOrg}, shared.ID, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.pipe.Delete(ctx, tc.c, tc.id)
			if memory.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want code %q", err, tc.code)
			}
			_, gerr := e.pipe.Get(ctx, org, tc.id)
			n, cerr := e.svc.Count(ctx, org, memory.Filter{DocumentID: tc.id})
			if cerr != nil {
				t.Fatal(cerr)
			}
			if gone := memory.IsNotFound(gerr) && n == 0; gone != tc.remove {
				t.Fatalf("document gone %v (status %v, %d memories), want %v", gone, gerr, n, tc.remove)
			}
		})
	}
}

// TestSubmitRefusesBadNames: Submit holds memory.ValidDocumentName for
// every caller (memctl's as HTTP's), before anything is stored.
func TestSubmitRefusesBadNames(t *testing.T) {
	e := setup(t)
	org := memory.Caller{OrgID: "acme"}
	for _, name := range []string{"", "../escape.md", "/abs.md", "dir/", "a/./b.md", "bad\x00name.md", "rtl\u202ename.md"} {
		t.Run(name, func(t *testing.T) {
			_, err := e.pipe.Submit(ctx, org, name, []byte("# Title\n\nSome text."))
			if memory.ErrorCode(err) != memory.EINVALID || !strings.Contains(memory.ErrorMessage(err), "name:") {
				t.Fatalf("Submit(%q): %v, want EINVALID naming the name", name, err)
			}
		})
	}
	if n, err := e.svc.Count(ctx, org, memory.Filter{}); err != nil || n != 0 {
		t.Fatalf("%d memories stored after refused names (%v), want 0", n, err)
	}
}
