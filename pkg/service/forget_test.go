package service_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// recordingForgetter records what the service asks adapters to forget.
type recordingForgetter struct{ ids []string }

func (r *recordingForgetter) Forget(_ context.Context, _ string, ids []string) error {
	r.ids = append(r.ids, ids...)
	return nil
}

// TestDeleteForgetsEveryCopy: deleting a turn that holds a card number
// leaves the number nowhere: not in the next turn's context, not in any
// search mode, not in the prompt context, not in a fact drawn only from
// it; a fact with another source keeps that source only.
func TestDeleteForgetsEveryCopy(t *testing.T) {
	rec := &recordingForgetter{}
	b := open(t, service.WithForgetter(rec))
	svc := b.Service
	msg := func(speaker, s string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, EntityID: speaker, RoomID: "r1", Content: text(s), CreatedAt: at}
	}
	ids := create(t, svc, orgA,
		msg("ana", "Shall we book the flights now?", 1000),
		msg("bo", "Sure, my card number is 4111 1111 1111 1111", 2000),
		msg("ana", "Great, booking them with that card", 3000),
		msg("bo", "I also want a window seat", 4000))
	before, after := ids[0].ID, ids[2].ID
	secret := ids[1].ID
	got, err := svc.Get(ctx, orgA, after)
	check(t, err)
	if !strings.Contains(got.Context, "4111") {
		t.Fatalf("precondition: the next turn's context %q does not hold the card", got.Context)
	}
	facts := create(t, svc, orgA,
		service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: text("Bo paid with card 4111 1111 1111 1111"),
			Metadata: json.RawMessage(`{"sources":["` + secret + `"]}`)},
		service.NewMemory{Type: memory.TypeFact, EntityID: "bo", Content: text("Bo is flying with Ana and wants a window seat"),
			Metadata: json.RawMessage(`{"sources":["` + secret + `","` + ids[3].ID + `"]}`)})
	only, shared := facts[0].ID, facts[1].ID
	check(t, svc.Relate(ctx, orgA, []memory.Relation{
		{FromID: only, Type: memory.RelCausedBy, ToID: secret, Confidence: 1, Provenance: []string{secret}},
		{FromID: shared, Type: memory.RelCausedBy, ToID: secret, Confidence: 1, Provenance: []string{secret, ids[3].ID}},
		{FromID: shared, Type: memory.RelCausedBy, ToID: ids[3].ID, Confidence: 1, Provenance: []string{secret, ids[3].ID}},
	}))

	// The history holds the card too, until the memory goes.
	revs, err := b.Store.History(ctx, "org-a", secret)
	check(t, err)
	if len(revs) == 0 || !strings.Contains(revs[0].Memory.Content.Text, "4111") {
		t.Fatalf("precondition: the history of the secret turn is %+v", revs)
	}
	res, err := svc.Delete(ctx, orgA, secret, service.DeleteOptions{})
	check(t, err)
	for _, id := range []string{secret, only} {
		if _, err := b.Store.History(ctx, "org-a", id); !memory.IsNotFound(err) {
			t.Fatalf("the history of deleted %s is still kept: %v", id, err)
		}
	}
	want := service.Forgotten{Memories: 2, Facts: 1, ContextsRewritten: 1, ReferencesRemoved: 1}
	if res != want {
		t.Fatalf("forgotten %+v, want %+v", res, want)
	}
	for _, id := range []string{secret, only} {
		if _, err := svc.Get(ctx, orgA, id); !memory.IsNotFound(err) {
			t.Fatalf("%s still readable: %v", id, err)
		}
		if !slices.Contains(rec.ids, id) {
			t.Fatalf("derived data of %s not forgotten: %v", id, rec.ids)
		}
	}
	got, err = svc.Get(ctx, orgA, after)
	check(t, err)
	// Neither does any kept version of the rewritten turn and fact.
	for _, id := range []string{after, shared} {
		revs, err := b.Store.History(ctx, "org-a", id)
		check(t, err)
		for _, r := range revs {
			js, _ := json.Marshal(r.Memory)
			if strings.Contains(string(js), "4111") || strings.Contains(string(js), secret) {
				t.Fatalf("version %d of %s still holds the deleted turn: %s", r.Version, id, js)
			}
		}
	}
	prev, _ := svc.Get(ctx, orgA, before)
	if strings.Contains(got.Context, "4111") || !strings.Contains(got.Context, prev.Content.Text) {
		t.Fatalf("the next turn's context is %q, want the turn before the deleted one", got.Context)
	}
	kept, err := svc.Get(ctx, orgA, shared)
	check(t, err)
	if strings.Contains(string(kept.Metadata), secret) || !strings.Contains(string(kept.Metadata), ids[3].ID) {
		t.Fatalf("the shared fact's sources %s", kept.Metadata)
	}
	rels, err := svc.Relations(ctx, orgA, shared)
	check(t, err)
	for _, r := range rels {
		if r.ToID == secret || slices.Contains(r.Provenance, secret) {
			t.Fatalf("a relation still names the deleted turn: %+v", r)
		}
	}
	for _, mode := range []service.Mode{service.ModeKeyword, service.ModeSemantic, service.ModeHybrid} {
		out, err := svc.Search(ctx, orgA, service.SearchRequest{Query: "card number 4111 1111 1111 1111", Mode: mode, K: 100})
		check(t, err)
		for _, r := range out {
			if strings.Contains(r.Memory.SearchText(), "4111") {
				t.Fatalf("%s search still finds the card in %s", mode, r.Memory.ID)
			}
		}
	}
	pc, err := svc.BuildContext(ctx, orgA, service.ContextRequest{Query: "card number", RoomID: "r1", BudgetTokens: 4000})
	check(t, err)
	if strings.Contains(pc.Context, "4111") {
		t.Fatalf("the prompt context shows the card:\n%s", pc.Context)
	}
}

// TestAgentKeysCannotDeleteTheOrgScope: an agent-bound caller deletes in
// its own scope only, one by one or in bulk.
func TestAgentKeysCannotDeleteTheOrgScope(t *testing.T) {
	b := open(t)
	svc := b.Service
	shared := create(t, svc, orgA, service.NewMemory{Content: text("the office wifi password rotates monthly"), RoomID: "r"})[0].ID
	own := create(t, svc, agentX, service.NewMemory{Scope: "agent", Content: text("x's own note"), RoomID: "r"})[0].ID
	for _, tc := range []struct {
		name string
		run  func() error
		code string
	}{
		{"delete one org-scope memory", func() error { _, err := svc.Delete(ctx, agentX, shared, service.DeleteOptions{}); return err }, memory.EFORBIDDEN},
		{"bulk delete of the org scope", func() error {
			_, err := svc.DeleteWhere(ctx, agentX, memory.Filter{AgentID: memory.OrgScope})
			return err
		}, memory.EFORBIDDEN},
		{"bulk delete by room", func() error {
			_, err := svc.DeleteWhere(ctx, agentX, memory.Filter{RoomID: "r"})
			return err
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.run(); memory.ErrorCode(err) != tc.code {
				t.Fatalf("got %v, want code %q", err, tc.code)
			}
		})
	}
	if _, err := svc.Get(ctx, orgA, shared); err != nil {
		t.Fatalf("the org-scope memory is gone: %v", err)
	}
	if _, err := svc.Get(ctx, agentX, own); !memory.IsNotFound(err) {
		t.Fatalf("x's own memory survived its bulk delete: %v", err)
	}
}

// TestContextCountsOnlyPlacedAccesses: a prompt context records an access
// for the memories it placed, not for every candidate the search weighed.
func TestContextCountsOnlyPlacedAccesses(t *testing.T) {
	b := open(t)
	svc := b.Service
	var in []service.NewMemory
	for i := range 60 {
		in = append(in, service.NewMemory{Type: memory.TypeFact, Content: text(strings.Repeat("the garden needs watering and pruning every week ", 3) + string(rune('a'+i%26)) + string(rune('a'+i/26)))})
	}
	create(t, svc, orgA, in...)
	pc, err := svc.BuildContext(ctx, orgA, service.ContextRequest{Query: "garden watering", BudgetTokens: 300})
	check(t, err)
	placed := map[string]bool{}
	for _, sec := range pc.Sections {
		for _, it := range sec.Items {
			placed[it.ID] = true
		}
	}
	if len(placed) == 0 || len(placed) >= 50 {
		t.Fatalf("%d memories placed: the budget should hold a few", len(placed))
	}
	page, err := svc.List(ctx, orgA, memory.Filter{}, 100, "")
	check(t, err)
	for _, m := range page.Memories {
		if (m.AccessCount > 0) != placed[m.ID] {
			t.Fatalf("memory %s: %d accesses, placed %v", m.ID, m.AccessCount, placed[m.ID])
		}
	}
}

// TestDeleteOptions: the one delete of a memory, unconditional or at a
// version, and by key (GetByKey, then Delete): a stale version deletes
// nothing, a missing memory is ENOTFOUND, and a delete reports what it
// forgot.
func TestDeleteOptions(t *testing.T) {
	b := open(t)
	svc := b.Service
	ms := create(t, svc, orgA,
		service.NewMemory{Content: text("the build runs nightly at two")},
		service.NewMemory{Content: text("the staging cluster is in Frankfurt")},
		service.NewMemory{Content: text("release notes go out on Fridays"), ExternalID: "notes"})
	byKey := func(key string) string {
		m, err := svc.GetByKey(ctx, orgA, service.KeyScope{}, key)
		check(t, err)
		return m.ID
	}
	for _, tc := range []struct {
		name string
		id   func() string
		o    service.DeleteOptions
		code string // "" when the memory goes
	}{
		{"a stale version", func() string { return ms[0].ID }, service.DeleteOptions{IfVersion: 7}, memory.EPRECONDITION},
		{"at its version", func() string { return ms[0].ID }, service.DeleteOptions{IfVersion: 1}, ""},
		{"gone already", func() string { return ms[0].ID }, service.DeleteOptions{}, memory.ENOTFOUND},
		{"unconditional", func() string { return ms[1].ID }, service.DeleteOptions{}, ""},
		{"by key", func() string { return byKey("notes") }, service.DeleteOptions{IfVersion: 1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			id := tc.id()
			got, err := svc.Delete(ctx, orgA, id, tc.o)
			if memory.ErrorCode(err) != tc.code {
				t.Fatalf("got %+v, %v, want code %q", got, err, tc.code)
			}
			_, gerr := svc.Get(ctx, orgA, id)
			switch {
			case tc.code == "" && (got.Memories != 1 || !memory.IsNotFound(gerr)):
				t.Fatalf("deleted %+v, then get: %v", got, gerr)
			case tc.code == memory.EPRECONDITION && gerr != nil:
				t.Fatalf("a refused delete removed the memory: %v", gerr)
			}
		})
	}
}
