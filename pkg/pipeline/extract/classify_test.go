package extract_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// scripted is a language model that answers each conversation with the
// facts scripted for the first turn text it contains, in the record_facts
// format; the sources are set to the conversation's first turn.
type scripted map[string][]map[string]any

func (s scripted) Call(_ context.Context, _, user string, tool memory.Tool) (json.RawMessage, memory.Usage, error) {
	id := strings.TrimPrefix(strings.SplitN(user, "]", 2)[0], "[")
	var facts []map[string]any
	for said, fs := range s {
		if strings.Contains(user, said) {
			for _, f := range fs {
				f["sources"] = []string{id}
				facts = append(facts, f)
			}
		}
	}
	js, err := json.Marshal(map[string]any{"facts": facts})
	return js, memory.Usage{Calls: 1}, err
}

// backend opens a local backend; the pipeline's RelatedAt is set very low,
// as if the embedder put every fact about one person close together (the
// situation of the report, where "does not eat gluten" and "birthday"
// scored above the old related threshold).
func backend(t *testing.T, ex extract.Extractor) (*extract.Pipeline, *consolidate.Job, *service.Service) {
	t.Helper()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(256), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	p := &extract.Pipeline{Service: b.Service.Pipelines(), Extractor: ex, Log: quiet, RelatedAt: 0.01}
	return p, &consolidate.Job{Service: b.Service.Pipelines(), Records: b.Store, Log: quiet}, b.Service
}

// TestGlutenIsNotABirthday: a dietary fact and a birthday of the same
// person are not a contradiction whatever their similarity, and
// consolidation archives neither.
func TestGlutenIsNotABirthday(t *testing.T) {
	llm := extract.LLM{LLM: scripted{
		"gluten":  {{"text": "maya does not eat gluten", "kind": "fact", "confidence": 0.9, "subject": "maya", "slot": "diet:gluten", "value": "gluten", "negated": true, "importance": 0.8, "durability": "standard"}},
		"14 July": {{"text": "maya's birthday is 14 July", "kind": "fact", "confidence": 0.9, "subject": "maya", "slot": "birthday", "value": "14 July", "importance": 0.9, "durability": "core"}},
	}}
	for _, ex := range []extract.Extractor{llm, extract.Local{}} {
		t.Run(ex.Name(), func(t *testing.T) {
			p, job, svc := backend(t, ex)
			c := memory.Caller{OrgID: "acme"}
			var ids []string
			for _, said := range []string{"Ana: Maya doesn't eat gluten.", "Ana: Maya's birthday is 14 July."} {
				out, err := p.Process(ctx, c, converse(t, svc, c, said))
				if err != nil || len(out) != 1 {
					t.Fatalf("%s: %+v %v", said, out, err)
				}
				if out[0].Decision == extract.Contradicts || out[0].Decision == extract.Supersedes {
					t.Fatalf("%s: %s %s (%+v)", said, out[0].Decision, out[0].Why.Rule, out[0].Why)
				}
				ids = append(ids, out[0].ID)
			}
			if _, err := job.Run(ctx, "acme"); err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				m, err := svc.Get(ctx, c, id)
				if err != nil || m.Archived || memory.FactMetaOf(m).Contested {
					t.Fatalf("after consolidation %s: %+v %v", id, m, err)
				}
				rels, _ := svc.Relations(ctx, c, id)
				for _, r := range rels {
					if r.Type == memory.RelContradicts || r.Type == memory.RelSupersedes {
						t.Fatalf("relation %+v between unrelated facts", r)
					}
				}
			}
		})
	}
}

// TestJazz: loving then hating jazz is a contradiction, kept on both sides
// and marked; loving it then "not anymore" supersedes.
func TestJazz(t *testing.T) {
	p, job, svc := backend(t, extract.Local{})
	c := memory.Caller{OrgID: "acme"}
	process := func(said string) extract.Outcome {
		t.Helper()
		out, err := p.Process(ctx, c, converse(t, svc, c, said))
		if err != nil || len(out) != 1 {
			t.Fatalf("%s: %+v %v", said, out, err)
		}
		return out[0]
	}
	love := process("Ana: I love jazz.")
	hate := process("Ana: I hate jazz.")
	if hate.Decision != extract.Contradicts || hate.Target != love.ID || hate.Why.Rule != "same-slot-opposite-polarity" {
		t.Fatalf("hate after love: %+v", hate)
	}
	m, _ := svc.Get(ctx, c, hate.ID)
	fm := memory.FactMetaOf(m)
	d := fm.Decision
	if d == nil || d.Kind != "contradicts" || d.Target != love.ID || d.Rule != "same-slot-opposite-polarity" || d.Subject != "Ana" ||
		d.Slot != "preference:jazz" || d.TargetText != "Ana loves jazz" || d.Scores["cosine"] == 0 {
		t.Fatalf("decision metadata %s", m.Metadata)
	}
	if !fm.Contested || fm.ContestedWith[0] != love.ID || fm.Slot != "preference:jazz" || !fm.Negated {
		t.Fatalf("the new side is not marked contested: %s", m.Metadata)
	}
	// Neither side is clearly stronger (same confidence, same day): both
	// stay, both marked, and a second run changes nothing.
	for run := 0; run < 2; run++ {
		rep, err := job.Run(ctx, "acme")
		if err != nil || rep.Contradicted != 0 {
			t.Fatalf("consolidation %d: %+v %v", run, rep, err)
		}
		for id, other := range map[string]string{love.ID: hate.ID, hate.ID: love.ID} {
			m, _ := svc.Get(ctx, c, id)
			if fm := memory.FactMetaOf(m); m.Archived || !fm.Contested || len(fm.ContestedWith) != 1 || fm.ContestedWith[0] != other {
				t.Fatalf("run %d: %s archived=%v metadata %s", run, id, m.Archived, m.Metadata)
			}
		}
	}
	// The contested facts can be listed by their mark.
	page, _ := svc.List(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}}, 100, "")
	contested := 0
	for _, m := range page.Memories {
		if memory.FactMetaOf(m).Contested {
			contested++
		}
	}
	if contested != 2 {
		t.Fatalf("%d contested facts listed, want 2", contested)
	}

	// Another org: a stated change supersedes.
	c = memory.Caller{OrgID: "globex"}
	love = process("Ana: I love jazz.")
	over := process("Ana: I don't like jazz anymore.")
	if over.Decision != extract.Supersedes || over.Target != love.ID || over.Why.Rule != "change-same-slot" || over.Why.TargetText != "Ana loves jazz" {
		t.Fatalf("a change: %+v", over)
	}
	if m, _ := svc.Get(ctx, c, love.ID); !m.Archived {
		t.Fatal("the superseded fact is not archived")
	}
	rels, _ := svc.Relations(ctx, c, over.ID)
	var sup bool
	for _, r := range rels {
		sup = sup || (r.Type == memory.RelSupersedes && r.FromID == over.ID && r.ToID == love.ID)
	}
	if !sup {
		t.Fatalf("relations %+v", rels)
	}
}

// TestClassification: the rules on one subject's facts, through the
// pipeline, with the offline extractor.
func TestClassification(t *testing.T) {
	tests := []struct {
		before, said string
		want         extract.Decision
		rule         string
		// which picks the outcome whose fact names it, when said has
		// several facts.
		which string
	}{
		{"Ana: I live in Lisbon.", "Ana: I moved to Porto.", extract.Supersedes, "change-same-slot", ""},
		{"Ana: I live in Lisbon.", "Ana: I live in Porto.", extract.Contradicts, "single-valued-slot", ""},
		{"Ana: I love green tea in the morning.", "Ana: Actually I prefer coffee now, tea keeps me awake.", extract.Supersedes, "change-names-old-value", ""},
		{"Ana: I love green tea.", "Ana: I love jazz.", extract.Enriches, "same-family", ""},
		{"Ana: I'm allergic to penicillin.", "Ana: I'm allergic to penicillin!", extract.Duplicate, "same-text", ""},
		{"Ana: I don't eat gluten.", "Ana: I never eat gluten.", extract.Duplicate, "same-slot-value", ""},
		{"Ana: I don't eat gluten.", "Ana: My birthday is 14 July.", extract.New, "unrelated", ""},
		{"Ana: I love jazz.", "Bo: I hate jazz.", extract.New, "no-known-fact", ""},
		{"Ana: My sister lives in Porto.", "Ana: I live in Lisbon.", extract.New, "no-known-fact", ""},
		// Issue 43: a stated change that denies a known fact's value ends
		// it, whatever its slot; denying another value does not.
		{"Maya: My favourite editor is Neovim.", "Maya: I switched to VS Code, I do not use Neovim anymore.", extract.Supersedes, "change-denies-value", "Neovim"},
		{"Maya: My favourite editor is Neovim.", "Maya: I do not use Emacs anymore.", extract.New, "unrelated", ""},
		{"Maya: My favourite editor is Neovim.", "Maya: Ana does not use Neovim anymore.", extract.New, "no-known-fact", ""},
	}
	for _, tc := range tests {
		t.Run(tc.said, func(t *testing.T) {
			p, _, svc := backend(t, extract.Local{})
			p.RelatedAt = 0 // the default
			c := memory.Caller{OrgID: "acme"}
			first, err := p.Process(ctx, c, converse(t, svc, c, tc.before))
			if err != nil || len(first) != 1 {
				t.Fatalf("%+v %v", first, err)
			}
			out, err := p.Process(ctx, c, converse(t, svc, c, tc.said))
			if err != nil {
				t.Fatal(err)
			}
			if tc.which != "" {
				out = slices.DeleteFunc(out, func(o extract.Outcome) bool { return !strings.Contains(o.Fact.Text, tc.which) })
			}
			if len(out) != 1 {
				t.Fatalf("%+v", out)
			}
			if out[0].Decision != tc.want || out[0].Why.Rule != tc.rule {
				t.Fatalf("%s by %s, want %s by %s (%+v)", out[0].Decision, out[0].Why.Rule, tc.want, tc.rule, out[0].Why)
			}
			if m, _ := svc.Get(ctx, c, first[0].ID); (tc.want == extract.Supersedes) != m.Archived {
				t.Fatalf("%s: the known fact archived = %v", tc.want, m.Archived)
			}
		})
	}
}

// TestStatementsStored: statements the pipeline used to miss are stored,
// and small talk of the moment is not (issue 43).
func TestStatementsStored(t *testing.T) {
	tests := []struct {
		said []string
		want []string // fact texts stored
	}{
		{[]string{"Maya: I'm vegetarian"}, []string{"Maya is vegetarian"}},
		{[]string{"Maya: our team uses Jira."}, []string{"Maya's team uses Jira"}},
		{[]string{"Bo: Where do you live now?", "Maya: Utrecht, near the Dom tower."}, []string{"Maya now lives in Utrecht, near the Dom tower"}},
		{[]string{"Bo: Where are you from?", "Maya: Porto!"}, []string{"Maya is from Porto"}},
		{[]string{"Maya: I am so tired today, long day."}, nil},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.said, " / "), func(t *testing.T) {
			p, _, svc := backend(t, extract.Local{})
			c := memory.Caller{OrgID: "acme"}
			out, err := p.Process(ctx, c, converse(t, svc, c, tc.said...))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, o := range out {
				got = append(got, o.Fact.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("stored %q, want %q", got, tc.want)
			}
		})
	}
}
