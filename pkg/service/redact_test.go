package service_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestPatchRederives: changing a turn's text gives the next turn's context
// the new text (its history keeping only that version), forgets the fact
// drawn only from the turn and, without redact, strips the turn from a
// fact with another source; with redact, that fact goes too, and the
// turn's history keeps only its new version.
func TestPatchRederives(t *testing.T) {
	for _, tc := range []struct {
		name       string
		redact     bool
		sharedKept bool
		turnVers   int // versions in the patched turn's history
	}{
		{"plain PATCH", false, true, 2},
		{"redact: true", true, false, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t)
			svc := b.Service
			msg := func(speaker, s string, at int64) service.NewMemory {
				return service.NewMemory{Type: memory.TypeMessage, EntityID: speaker, RoomID: "r1", Content: text(s), CreatedAt: at}
			}
			ids := create(t, svc, orgA,
				msg("bo", "My card number is 4111 1111 1111 1111", 1000),
				msg("ana", "Great, booking with that card", 2000),
				msg("bo", "I also want a window seat", 3000))
			secret, next := ids[0].ID, ids[1].ID
			facts := create(t, svc, orgA,
				service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: text("Bo paid with card 4111 1111 1111 1111"),
					Metadata: json.RawMessage(`{"sources":["` + secret + `"]}`)},
				service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: text("Bo books flights and wants a window seat"),
					Metadata: json.RawMessage(`{"sources":["` + secret + `","` + ids[2].ID + `"]}`)})
			only, shared := facts[0].ID, facts[1].ID
			check(t, svc.Relate(ctx, orgA, []memory.Relation{
				{FromID: only, Type: memory.RelCausedBy, ToID: secret, Confidence: 1, Provenance: []string{secret}},
				{FromID: shared, Type: memory.RelCausedBy, ToID: secret, Confidence: 1, Provenance: []string{secret, ids[2].ID}},
				{FromID: shared, Type: memory.RelCausedBy, ToID: ids[2].ID, Confidence: 1, Provenance: []string{secret, ids[2].ID}},
			}))
			_, err := svc.Update(ctx, orgA, secret, service.Patch{Content: &memory.Content{Text: "My card number is [redacted]"}, Redact: tc.redact})
			check(t, err)

			m, err := svc.Get(ctx, orgA, next)
			check(t, err)
			if m.Context != "bo: My card number is [redacted]" {
				t.Fatalf("next turn's context %q", m.Context)
			}
			for _, id := range []string{next, secret} {
				revs, err := b.Store.History(ctx, "org-a", id)
				check(t, err)
				for _, r := range revs {
					if strings.Contains(r.Memory.Content.Text, "4111") || strings.Contains(r.Memory.Context, "4111") {
						if id == next || tc.redact {
							t.Fatalf("history of %s keeps the old text: version %d %q", id, r.Version, r.Memory.Context+r.Memory.Content.Text)
						}
					}
				}
				if id == secret && len(revs) != tc.turnVers {
					t.Fatalf("history of the turn: %d versions, want %d", len(revs), tc.turnVers)
				}
			}
			if _, err := svc.Get(ctx, orgA, only); !memory.IsNotFound(err) {
				t.Fatalf("the fact drawn only from the old text is still there: %v", err)
			}
			f, err := svc.Get(ctx, orgA, shared)
			if kept := err == nil; kept != tc.sharedKept {
				t.Fatalf("fact with another source kept %v, want %v (%v)", kept, tc.sharedKept, err)
			}
			if err == nil && strings.Contains(string(f.Metadata), secret) {
				t.Fatalf("the kept fact still names the old text as a source: %s", f.Metadata)
			}
		})
	}
}
