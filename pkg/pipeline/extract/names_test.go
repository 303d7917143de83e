package extract_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/registry"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestSubjectsResolvedByTheRegistry: a fact about a registered entity,
// whether its speaker is named by the entity's id, a name in another case
// or an alias, or a turn mentions the alias, has the entity's id as its
// entityId and is compared with that entity's other facts as one subject.
func TestSubjectsResolvedByTheRegistry(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(256), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	c := memory.Caller{OrgID: "acme"}
	if _, err := b.Registry.CreateEntity(ctx, c, registry.NewEntity{ID: "u-bob", Names: []string{"Bob", "Robert"}}); err != nil {
		t.Fatal(err)
	}
	p := &extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: quiet, Entities: b.Registry}
	for _, tc := range []struct {
		name, line  string
		entity      string
		subject     string
		decision    extract.Decision
		textHasName string // the fact's text names the subject so
	}{
		{"the speaker by id", "u-bob: I am allergic to peanuts.", "u-bob", "Bob", extract.New, "Bob"},
		{"the same fact by a name in lower case", "bob: I am allergic to peanuts.", "u-bob", "Bob", extract.Duplicate, "Bob"},
		{"the speaker by an alias", "Robert: I love green tea in the morning.", "u-bob", "Bob", extract.New, "Bob"},
		{"a mention by an alias", "Alice: Robert is vegetarian.", "u-bob", "Bob", extract.New, "Robert"}, // the text keeps what was said,
		{"a name the registry does not know", "Alice: I love hiking in the Alps.", "Alice", "Alice", extract.New, "Alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := p.Process(ctx, c, converse(t, b.Service, c, tc.line))
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 1 {
				t.Fatalf("%d facts: %+v", len(out), out)
			}
			o := out[0]
			if o.Decision != tc.decision || o.Fact.Subject != tc.subject {
				t.Fatalf("decision %s subject %q, want %s %q (%+v)", o.Decision, o.Fact.Subject, tc.decision, tc.subject, o.Why)
			}
			m, err := b.Service.Get(ctx, c, o.ID)
			if err != nil {
				t.Fatal(err)
			}
			if m.EntityID != tc.entity {
				t.Fatalf("the fact %q has entityId %q, want %q", m.Content.Text, m.EntityID, tc.entity)
			}
			if !strings.Contains(m.Content.Text, tc.textHasName) {
				t.Fatalf("the fact %q does not name %s", m.Content.Text, tc.textHasName)
			}
		})
	}
}
