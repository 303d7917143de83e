package offline

import (
	"context"
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestTitlesAndNames: titles stay one entity typed by their context,
// appositions type their names, pronoun subjects resolve to the speaker
// and the addressee, and plural common nouns are not people (issue 42).
func TestTitlesAndNames(t *testing.T) {
	tests := []struct {
		name, text string
		entity     string   // an entity that must be found whole
		types      []string // types it must have
		notTypes   []string // types it must not have
		absent     []string // entity names that must not appear (the pieces)
		action     *act
	}{
		{name: "quoted title", text: `I just finished reading "Klara and the Sun" last night.`, entity: "Klara and the Sun", types: []string{"book"}, absent: []string{"Klara", "Sun"}},
		{name: "capitalized title with a possessive", text: "Have you read The Innovator's Dilemma?", entity: "The Innovator's Dilemma", types: []string{"book"},
			absent: []string{"The Innovator", "Dilemma"}},
		{name: "title with commas after a cue", text: "My favorite novel is Gödel, Escher, Bach.", entity: "Gödel, Escher, Bach", types: []string{"book"},
			notTypes: []string{"person"}, absent: []string{"Gödel", "Escher", "Bach"}},
		{name: "apposition: artist", text: "I love the artist Paul Simon and the painter Frida Kahlo.", entity: "Paul Simon", types: []string{"person", "artist"}},
		{name: "apposition: painter", text: "I love the artist Paul Simon and the painter Frida Kahlo.", entity: "Frida Kahlo", types: []string{"person", "painter"}},
		{name: "pronoun subject and object", text: "I sent you an email about new AI models.",
			action: &act{subject: "Sam", verbs: "send", object: "email", ind: "Ana", tense: "past"}},
		{name: "plural common noun", text: "I sent you an email about new AI models.", entity: "AI model", notTypes: []string{"person", "occupation"}},
		{name: "plural relatives stay people", text: "My parents visited Lisbon.", entity: "parent", types: []string{"person"}},
	}
	x := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ks, err := x.Extract(context.Background(), []memory.KnowledgeSource{src(tt.text)})
			if err != nil {
				t.Fatal(err)
			}
			k := ks[0]
			names := map[string]memory.Entity{}
			for _, e := range k.Entities {
				names[e.Name] = e
			}
			if tt.entity != "" {
				e, ok := names[tt.entity]
				if !ok {
					t.Fatalf("no entity %q in %+v", tt.entity, k.Entities)
				}
				for _, ty := range tt.types {
					if !slices.Contains(e.Types, ty) {
						t.Errorf("%q: types %v, want %q", tt.entity, e.Types, ty)
					}
				}
				for _, ty := range tt.notTypes {
					if slices.Contains(e.Types, ty) {
						t.Errorf("%q: types %v, must not have %q", tt.entity, e.Types, ty)
					}
				}
			}
			for _, n := range tt.absent {
				if _, ok := names[n]; ok {
					t.Errorf("entity %q is a piece of a title: %+v", n, k.Entities)
				}
			}
			if w := tt.action; w != nil {
				if !slices.ContainsFunc(k.Actions, func(a memory.Action) bool {
					return a.Subject == w.subject && slices.Contains(a.Verbs, w.verbs) && a.Object == w.object && a.IndirectObject == w.ind && a.Tense == w.tense
				}) {
					t.Errorf("no action %+v in %+v", *w, k.Actions)
				}
			}
		})
	}
}

// TestPodcastBooks is a podcast-style conversation naming six books: at
// least five must be found whole and typed book.
func TestPodcastBooks(t *testing.T) {
	turns := []struct{ text, title string }{
		{`Welcome back! This week I finally read "Klara and the Sun" and I can't stop thinking about it.`, "Klara and the Sun"},
		{"Oh, I loved that one. Have you read The Innovator's Dilemma? It changed how I think about startups.", "The Innovator's Dilemma"},
		{"My favorite book of all time is Gödel, Escher, Bach.", "Gödel, Escher, Bach"},
		{"Our guest recommended the novel Project Hail Mary for anyone who likes science.", "Project Hail Mary"},
		{`I'm halfway through reading "Thinking, Fast and Slow" on the train.`, "Thinking, Fast and Slow"},
		{"Next month our book club is reading The Remains of the Day.", "The Remains of the Day"},
	}
	x := New(Options{})
	typed := 0
	for _, tt := range turns {
		ks, err := x.Extract(context.Background(), []memory.KnowledgeSource{src(tt.text)})
		if err != nil {
			t.Fatal(err)
		}
		ok := slices.ContainsFunc(ks[0].Entities, func(e memory.Entity) bool { return e.Name == tt.title && slices.Contains(e.Types, "book") })
		if ok {
			typed++
		} else {
			t.Logf("%q: not typed book whole: %+v", tt.title, ks[0].Entities)
		}
	}
	t.Logf("titles typed book: %d of %d", typed, len(turns))
	if typed < 5 {
		t.Errorf("titles typed book: %d of %d, want at least 5", typed, len(turns))
	}
}
