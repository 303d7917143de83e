package offline

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ent expects an entity with a name, some of its types and facets
// ("name=value").
type ent struct {
	name   string
	types  []string
	facets []string
}

// act expects an action; empty fields are not checked, params are
// "name=value".
type act struct {
	subject, verbs, object, ind, tense string
	negated                            bool
	params                             []string
	facet                              string // "likes=jazz"
}

func src(text string) memory.KnowledgeSource {
	return memory.KnowledgeSource{MemoryID: "m1", Type: memory.TypeMessage, Text: text, Speaker: "Sam", Listeners: []string{"Ana"}}
}

func TestExtract(t *testing.T) {
	tests := []struct {
		text      string
		entities  []ent
		actions   []act
		absent    []string // entity names that must not appear
		topics    []string // topics that must appear
		noActions bool     // only the metadata action
	}{
		{text: "I adopted a puppy last week.",
			entities: []ent{{name: "puppy", types: []string{"dog", "animal", "pet"}, facets: []string{"owner=Sam"}}},
			actions:  []act{{subject: "Sam", verbs: "adopt", object: "puppy", tense: "past", params: []string{"time=last week"}}}},
		{text: "Ana moved to Lisbon in May 2023.",
			entities: []ent{{name: "Lisbon", types: []string{"place"}}},
			actions:  []act{{subject: "Ana", verbs: "move", ind: "Lisbon", tense: "past", params: []string{"time=May 2023"}}}},
		{text: "We spent Christmas with my parents.",
			actions: []act{{subject: "Sam", verbs: "spend", tense: "past", params: []string{"with=parent", "time=Christmas"}}}},
		{text: "I started pottery a few years back.",
			actions: []act{{subject: "Sam", verbs: "start", object: "pottery", tense: "past", params: []string{"time=a few years back"}}}},
		{text: "We went camping last summer.",
			entities: []ent{{name: "camping", types: []string{"activity"}}},
			actions:  []act{{subject: "Sam", verbs: "go", object: "camping", tense: "past", params: []string{"time=last summer"}}}},
		{text: "I'm 32 and my favorite band is Radiohead.",
			entities: []ent{{name: "Sam", facets: []string{"age=32 years", "favorite band=Radiohead"}}, {name: "Radiohead"}},
			absent:   []string{"band"}},
		{text: "I love jazz but I really hate reality shows.",
			actions: []act{{subject: "Sam", verbs: "love", object: "jazz", tense: "present", facet: "likes=jazz"},
				{subject: "Sam", verbs: "hate", object: "reality show", facet: "dislikes=reality show"}}},
		{text: "I didn't enjoy the concert.",
			actions: []act{{subject: "Sam", verbs: "enjoy", object: "concert", tense: "past", negated: true, facet: "dislikes=concert"}}},
		{text: "My brother will fly to Toronto next month.",
			entities: []ent{{name: "brother", types: []string{"person"}, facets: []string{"relation=brother of Sam"}}, {name: "Toronto", types: []string{"place"}}},
			actions:  []act{{subject: "brother", verbs: "fly", ind: "Toronto", tense: "future", params: []string{"time=next month"}}}},
		{text: "Lena called: she's going to start a pottery class on Monday.",
			actions: []act{{subject: "Lena", verbs: "start", object: "pottery class", tense: "future", params: []string{"time=Monday"}}}},
		{text: "I've been playing the violin for 12 years.",
			entities: []ent{{name: "violin", types: []string{"instrument"}}},
			actions:  []act{{subject: "Sam", verbs: "play", object: "violin", params: []string{"duration=12 years"}}}},
		{text: "My friend Priya is a dentist in Chicago.",
			entities: []ent{{name: "Priya", types: []string{"person"}, facets: []string{"relation=friend of Sam", "occupation=dentist"}},
				{name: "Chicago", types: []string{"place", "city"}}}},
		{text: "Dr. Okafor told me to take it easy.",
			entities: []ent{{name: "Dr. Okafor", types: []string{"person"}}},
			actions:  []act{{subject: "Dr. Okafor", verbs: "tell", object: "Sam", tense: "past"}}},
		{text: "I work at Acme Corp as a data analyst.",
			entities: []ent{{name: "Acme Corp", types: []string{"organization"}}, {name: "Sam", facets: []string{"occupation=data analyst"}}},
			actions:  []act{{subject: "Sam", verbs: "work", ind: "Acme Corp", tense: "present"}}},
		{text: "My dad gave me his old car for my birthday.",
			entities: []ent{{name: "dad", types: []string{"person"}}, {name: "car", types: []string{"vehicle"}, facets: []string{"owner=dad"}}},
			actions:  []act{{subject: "dad", verbs: "give", object: "car", ind: "Sam", tense: "past", params: []string{"for=birthday"}}}},
		{text: "My aunt bought me a bike.",
			entities: []ent{{name: "bike", types: []string{"vehicle"}, facets: []string{"owner=Sam"}}}},
		{text: "We're thinking about buying a house near the coast.",
			actions: []act{{subject: "Sam", verbs: "think buy", object: "house", tense: "present"}}},
		{text: "I can't stand loud music.",
			actions: []act{{subject: "Sam", verbs: "stand", negated: true, facet: "dislikes=loud music"}}},
		{text: "Yesterday my daughter ran 5 km with her school team.",
			actions: []act{{subject: "daughter", verbs: "run", tense: "past", params: []string{"distance=5 km", "time=Yesterday"}}}},
		{text: "I'm reading The Left Hand of Darkness at the moment.",
			entities: []ent{{name: "The Left Hand of Darkness", types: []string{"book"}}},
			actions:  []act{{subject: "Sam", verbs: "read", object: "The Left Hand of Darkness"}}},
		{text: "Ana's cat is 4 years old.",
			entities: []ent{{name: "cat", facets: []string{"owner=Ana", "age=4 years"}}}},
		{text: "I'm vegetarian and I'm allergic to peanuts.",
			entities: []ent{{name: "Sam", facets: []string{"status=vegetarian", "allergy=peanuts"}}}},
		{text: "I'm originally from Brazil, but I live in Oslo now.",
			entities: []ent{{name: "Sam", facets: []string{"from=Brazil"}}, {name: "Oslo", types: []string{"place"}}},
			actions:  []act{{subject: "Sam", verbs: "live", ind: "Oslo", tense: "present"}}},
		{text: "My grandma taught me how to knit when I was a kid.",
			entities: []ent{{name: "grandma", types: []string{"person"}, facets: []string{"relation=grandma of Sam"}}},
			actions:  []act{{subject: "grandma", verbs: "teach", object: "Sam", tense: "past"}}},
		{text: "Did you see the game last night?", // a question states nothing
			noActions: true},
		{text: "I was invited to a wedding in Rome.",
			actions: []act{{verbs: "invite", object: "Sam", ind: "wedding", tense: "past"}}},
		{text: "Kofi said he will visit Ghana in December.",
			entities: []ent{{name: "Kofi", types: []string{"person"}}, {name: "Ghana", types: []string{"place", "country"}}},
			actions:  []act{{subject: "Kofi", verbs: "visit", object: "Ghana", tense: "future", params: []string{"time=December"}}}},
		{text: "We have three kids and two dogs.",
			entities: []ent{{name: "kid", facets: []string{"relation=kid of Sam", "count=3"}}}},
		{text: "I'd love to visit Iceland someday.",
			actions: []act{{subject: "Sam", verbs: "love visit", object: "Iceland", facet: "wants=visit Iceland"}}},
		{text: "Thanks, Ana! That sounds wonderful.",
			absent: []string{"Thanks", "That"}},
		{text: "My neighbor's dog barked all night.",
			entities: []ent{{name: "dog", types: []string{"animal", "pet"}, facets: []string{"owner=neighbor"}}},
			actions:  []act{{subject: "dog", verbs: "bark", tense: "past"}}},
		{text: "I joined a local support group and my sister opened a dance studio.",
			entities: []ent{{name: "local support group", types: []string{"group"}}, {name: "dance studio", types: []string{"place"}}},
			actions: []act{{subject: "Sam", verbs: "join", object: "local support group", tense: "past"},
				{subject: "sister", verbs: "open", object: "dance studio", tense: "past"}}},
		{text: "They saw the parade.", // an unresolved "they" gives no action
			noActions: true},
		{text: "The new exhibition about ancient Egyptian jewelry opens at the city museum.",
			topics: []string{"ancient Egyptian jewelry"}},
	}
	x := New(Options{})
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			k := x.ExtractOne(src(tc.text))
			checkRanges(t, tc.text, k)
			dump, _ := json.Marshal(k)
			for _, w := range tc.entities {
				e, ok := findEntity(k, w.name)
				if !ok {
					t.Errorf("no entity %q in %s", w.name, dump)
					continue
				}
				for _, ty := range w.types {
					if !slices.Contains(e.Types, ty) {
						t.Errorf("entity %q: types %v, want %q", w.name, e.Types, ty)
					}
				}
				for _, f := range w.facets {
					if !hasFacet(e.Facets, f) {
						t.Errorf("entity %q: facets %+v, want %s", w.name, e.Facets, f)
					}
				}
			}
			for _, w := range tc.actions {
				if !slices.ContainsFunc(k.Actions, func(a memory.Action) bool { return matches(a, w) }) {
					t.Errorf("no action %+v in %s", w, dump)
				}
			}
			if tc.noActions && len(k.Actions) != 1 {
				t.Errorf("actions beyond the metadata: %s", dump)
			}
			for _, name := range tc.absent {
				if _, ok := findEntity(k, name); ok {
					t.Errorf("entity %q should not be found: %s", name, dump)
				}
			}
			for _, tp := range tc.topics {
				if !slices.Contains(k.Topics, tp) {
					t.Errorf("topics %q, want %q", k.Topics, tp)
				}
			}
		})
	}
}

func findEntity(k memory.Knowledge, name string) (memory.Entity, bool) {
	for _, e := range k.Entities {
		if e.Name == name {
			return e, true
		}
	}
	return memory.Entity{}, false
}

func hasFacet(fs []memory.Facet, want string) bool {
	name, value, _ := strings.Cut(want, "=")
	for _, f := range fs {
		if f.Name == name && f.String() == value {
			return true
		}
	}
	return false
}

func matches(a memory.Action, w act) bool {
	if w.subject != "" && a.Subject != w.subject || w.verbs != "" && strings.Join(a.Verbs, " ") != w.verbs ||
		w.object != "" && a.Object != w.object || w.ind != "" && a.IndirectObject != w.ind ||
		w.tense != "" && a.Tense != w.tense || a.Negated != w.negated {
		return false
	}
	for _, p := range w.params {
		name, value, _ := strings.Cut(p, "=")
		if !slices.Contains(a.Params, memory.ActionParam{Name: name, Value: value}) {
			return false
		}
	}
	if w.facet != "" {
		return a.SubjectFacet != nil && hasFacet([]memory.Facet{*a.SubjectFacet}, w.facet)
	}
	return true
}

// checkRanges checks that every range lies within the text, one per item.
func checkRanges(t *testing.T, text string, k memory.Knowledge) {
	t.Helper()
	for _, c := range []struct {
		what  string
		rs    []memory.TextRange
		items int
	}{{"entity", k.EntityRanges, len(k.Entities)}, {"action", k.ActionRanges, len(k.Actions)}, {"topic", k.TopicRanges, len(k.Topics)}} {
		if len(c.rs) != c.items {
			t.Errorf("%d %s ranges for %d items", len(c.rs), c.what, c.items)
			continue
		}
		for _, r := range c.rs {
			if r.Start < 0 || r.End > len(text) || r.Start > r.End {
				t.Errorf("%s range %+v outside the text (%d bytes)", c.what, r, len(text))
			}
		}
	}
}

func TestTopicRangesPointAtTheirText(t *testing.T) {
	text := "We spent the whole afternoon at the botanical garden, then had dinner at a tiny noodle bar."
	k := New(Options{}).ExtractOne(src(text))
	if len(k.Topics) == 0 {
		t.Fatal("no topics")
	}
	for i, tp := range k.Topics {
		r := k.TopicRanges[i]
		if !strings.EqualFold(text[r.Start:r.End], tp) {
			t.Errorf("topic %q has range %+v = %q", tp, r, text[r.Start:r.End])
		}
	}
}

func TestMetadata(t *testing.T) {
	tests := []struct {
		name      string
		src       memory.KnowledgeSource
		omitSay   bool
		entities  []string
		sayToward []string
	}{
		{"speaker and listeners", memory.KnowledgeSource{Speaker: "Sam", Listeners: []string{"Ana", "Bo"}}, false,
			[]string{"Sam", "Ana", "Bo"}, []string{"Ana", "Bo"}},
		{"no say actions", memory.KnowledgeSource{Speaker: "Sam", Listeners: []string{"Ana"}}, true, []string{"Sam", "Ana"}, nil},
		{"listener repeated or the speaker", memory.KnowledgeSource{Speaker: "Sam", Listeners: []string{"Ana", "ana ", "Sam", ""}}, false,
			[]string{"Sam", "Ana"}, []string{"Ana"}},
		{"no speaker", memory.KnowledgeSource{Listeners: []string{"Ana"}}, false, []string{"Ana"}, nil},
		{"invalid names", memory.KnowledgeSource{Speaker: "\xff", Listeners: []string{"..."}}, false, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := Metadata(tc.src, tc.omitSay)
			var names []string
			for _, e := range k.Entities {
				names = append(names, e.Name)
				if !slices.Equal(e.Types, []string{"person"}) {
					t.Errorf("%s: types %v", e.Name, e.Types)
				}
			}
			if !slices.Equal(names, tc.entities) {
				t.Errorf("entities %q, want %q", names, tc.entities)
			}
			var to []string
			for _, a := range k.Actions {
				if a.Subject != "Sam" || a.Verbs[0] != "say" {
					t.Errorf("action %+v", a)
				}
				to = append(to, a.Object)
			}
			if !slices.Equal(to, tc.sayToward) {
				t.Errorf("say actions toward %q, want %q", to, tc.sayToward)
			}
			// the same through the extractor, whatever the text
			k2 := New(Options{OmitSayActions: tc.omitSay}).ExtractOne(tc.src)
			if len(k2.Entities) < len(tc.entities) {
				t.Errorf("the extractor lost metadata: %+v", k2)
			}
		})
	}
}

func TestPronounsResolve(t *testing.T) {
	tests := []struct {
		name, text, speaker string
		listeners           []string
		want                act
	}{
		{"I is the speaker", "I bought a kayak.", "Sam", []string{"Ana"}, act{subject: "Sam", verbs: "buy", object: "kayak", tense: "past"}},
		{"you is the only listener", "You adopted a cat!", "Sam", []string{"Ana"}, act{subject: "Ana", verbs: "adopt", object: "cat", tense: "past"}},
		{"you with two listeners stays open", "You adopted a cat!", "Sam", []string{"Ana", "Bo"}, act{subject: "", verbs: "adopt", object: "cat"}},
		{"she is the one person named before", "Lena called. She adopted a parrot.", "Sam", nil, act{subject: "Lena", verbs: "adopt", object: "parrot"}},
		{"no speaker: I stays open", "I bought a kayak.", "", nil, act{subject: "", verbs: "buy", object: "kayak"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := New(Options{}).ExtractOne(memory.KnowledgeSource{Text: tc.text, Speaker: tc.speaker, Listeners: tc.listeners})
			if !slices.ContainsFunc(k.Actions, func(a memory.Action) bool { return matches(a, tc.want) }) {
				b, _ := json.Marshal(k.Actions)
				t.Errorf("no action %+v in %s", tc.want, b)
			}
		})
	}
}

func TestCaps(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 400; i++ {
		b.WriteString("I visited the museum of modern art and the botanical garden in Lisbon with my sister. ")
	}
	o := Options{MaxTopics: 3, MaxEntities: 4, MaxActions: 2}
	k := New(o).ExtractOne(src(b.String()))
	if len(k.Topics) > 3 || len(k.Entities) > 4 || len(k.Actions) > 2 {
		t.Errorf("caps exceeded: %d topics, %d entities, %d actions", len(k.Topics), len(k.Entities), len(k.Actions))
	}
	if n := len(k.Refs("m1")); n > memory.MaxRefsPerMemory {
		t.Errorf("%d refs", n)
	}
	// defaults, and a text longer than MaxTextBytes is read in part.
	long := New(Options{MaxTextBytes: 100}).ExtractOne(src(b.String()))
	for _, r := range long.EntityRanges {
		if r.End > 100 {
			t.Errorf("range %+v beyond the part read", r)
		}
	}
}

func TestExtractContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New(Options{}).Extract(ctx, []memory.KnowledgeSource{src("hi")}); err == nil {
		t.Error("a done context gave no error")
	}
	ks, err := New(Options{}).Extract(context.Background(), []memory.KnowledgeSource{src("I love tea."), src(""), src("Ana sings.")})
	if err != nil || len(ks) != 3 {
		t.Fatalf("%d results, %v", len(ks), err)
	}
	if len(ks[1].Actions) != 1 || len(ks[1].Entities) != 2 { // metadata only
		t.Errorf("empty text: %+v", ks[1])
	}
	if !slices.ContainsFunc(ks[0].Actions, func(a memory.Action) bool { return a.SubjectFacet != nil }) {
		t.Errorf("results out of order: %+v", ks[0])
	}
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"I adopted a puppy last week.", "Ana's dog is 3 years old", "My favorite X is", "’s", "'s 's", "\"\"", "“The",
		"I'm 32", "for 3", "in May", "the 5th of", "Mr. . Smith", "5km 3pm 1,000", "U.S. e.g.", "@ana #tag http://x",
		"\xff\xfe I \x00 love", "I I I I", "and and and", "my my my favorite", "a 's", "n't", "can't won't ain't",
		strings.Repeat("Big ", 50), strings.Repeat("I love ", 30), "🙂 I love 🙂 pizza 🙂", "ÉMILE went to Zürich",
	} {
		f.Add(s, "Sam", "Ana")
	}
	x := New(Options{})
	f.Fuzz(func(t *testing.T, text, speaker, listener string) {
		s := memory.KnowledgeSource{Text: text, Speaker: speaker, Listeners: []string{listener}}
		k := x.ExtractOne(s)
		checkRanges(t, text, k)
		for i, r := range k.EntityRanges {
			if r != (memory.TextRange{}) && (!utf8.ValidString(text) || r.End > len(text)) && utf8.ValidString(text) {
				t.Errorf("entity %d range %+v", i, r)
			}
		}
		if n := len(k.Refs("m")); n > memory.MaxRefsPerMemory {
			t.Errorf("%d refs", n)
		}
		for _, a := range k.Actions {
			if len(a.Verbs) == 0 {
				t.Errorf("action without verbs: %+v", a)
			}
			switch a.Tense {
			case memory.TensePast, memory.TensePresent, memory.TenseFuture:
			default:
				t.Errorf("tense %q", a.Tense)
			}
		}
	})
}
