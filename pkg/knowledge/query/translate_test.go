package query

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// shape is what a test checks of a translated expression.
type shape struct {
	names, types []string // entity leaves, in order
	actions      []string // "verb subject>object>indirect"
	terms        []string // term leaves or free terms, in order
	askTime      bool
	start, end   time.Time
	relation     string
	anchor       []string
}

func shapeOf(x *Expr) shape {
	var s shape
	var walk func(n *Node)
	walk = func(n *Node) {
		switch {
		case n.Or != nil:
			for i := range n.Or {
				walk(&n.Or[i])
			}
		case n.Entity != nil && n.Entity.Name != "":
			s.names = append(s.names, n.Entity.Name)
		case n.Entity != nil:
			s.types = append(s.types, n.Entity.Types...)
		case n.Action != nil:
			a := n.Action
			s.actions = append(s.actions, strings.Join(a.Verbs, "+")+" "+a.Subject+">"+a.Object+">"+a.IndirectObject)
		case n.Term != "":
			s.terms = append(s.terms, n.Term)
		}
	}
	if x.Select != nil {
		walk(x.Select)
	}
	s.terms = append(s.terms, x.Terms...)
	s.askTime = x.AskTime
	if t := x.Time; t != nil {
		s.start, _ = time.Parse(time.RFC3339, t.Start)
		s.end, _ = time.Parse(time.RFC3339, t.End)
		s.relation, s.anchor = t.Relation, t.Anchor
	}
	return s
}

func TestTranslate(t *testing.T) {
	known := func(names ...string) func(string) bool {
		return func(t string) bool { return slices.Contains(names, t) }
	}
	tests := []struct {
		q        string
		known    func(string) bool
		want     shape
		notTerms []string // words that must not be terms
	}{
		{q: "What sports has Ana tried?",
			want: shape{names: []string{"ana"}, types: []string{"sport"}, actions: []string{"try ana>>"},
				terms: []string{"sports", "sport", "tried", "try"}},
			notTerms: []string{"what", "has", "ana"}},
		{q: "When did Ana move to Lisbon?",
			want: shape{names: []string{"ana", "lisbon"}, actions: []string{"move ana>>lisbon"}, terms: []string{"move"}, askTime: true}},
		{q: "Who did Bo meet in Paris last summer?",
			want: shape{names: []string{"bo", "paris"}, types: []string{"person"}, actions: []string{"meet bo>>paris"},
				terms: []string{"meet"}, start: day(2023, 6, 1), end: day(2023, 9, 1)},
			notTerms: []string{"summer", "last"}},
		{q: "Where did Priya go on vacation in May 2023?",
			want: shape{names: []string{"priya"}, types: []string{"place", "city", "country"}, actions: []string{"go priya>>vacation"},
				terms: []string{"go", "vacation"}, start: day(2023, 5, 1), end: day(2023, 6, 1)},
			notTerms: []string{"may", "2023"}},
		{q: "Which books did Marco recommend?",
			want: shape{names: []string{"marco"}, types: []string{"book"}, actions: []string{"recommend marco>>"},
				terms: []string{"books", "book", "recommend"}}},
		{q: "What kind of music does Lena like?",
			want:     shape{names: []string{"lena"}, types: []string{"music"}, actions: []string{"like lena>>"}, terms: []string{"music", "like"}},
			notTerms: []string{"kind"}},
		{q: "Which people did Ana invite to the wedding yesterday?",
			want: shape{names: []string{"ana"}, types: []string{"person"}, actions: []string{"invite ana>>wedding"},
				terms: []string{"people", "person", "invite", "wedding", "wed"}, start: day(2024, 3, 12), end: day(2024, 3, 13)}},
		{q: "What did Tom buy before the trip to Japan?",
			want: shape{names: []string{"tom"}, actions: []string{"buy tom>>"}, terms: []string{"buy"}, relation: "before",
				anchor: []string{"trip", "japan"}},
			notTerms: []string{"trip", "japan"}},
		{q: "What happened after she moved?",
			want: shape{terms: []string{"happened", "happen"}, relation: "after", anchor: []string{"moved", "move"}}},
		{q: "What did Ana cook over the weekend?",
			want: shape{names: []string{"ana"}, actions: []string{"cook ana>>"}, terms: []string{"cook"},
				start: day(2024, 3, 9), end: day(2024, 3, 11)},
			notTerms: []string{"weekend"}},
		{q: "Where did Bo go last Christmas?",
			want: shape{names: []string{"bo"}, types: []string{"place", "city", "country"}, actions: []string{"go bo>>"},
				terms: []string{"go"}, start: day(2023, 12, 25), end: day(2023, 12, 26)},
			notTerms: []string{"christmas"}},
		{q: "Did Sam adopt a dog 3 weeks ago?",
			want: shape{names: []string{"sam"}, actions: []string{"adopt sam>dog>"}, terms: []string{"adopt", "dog"},
				start: day(2024, 2, 19), end: day(2024, 2, 26)}},
		{q: "How long ago did Kofi start painting?",
			want: shape{names: []string{"kofi"}, actions: []string{"start kofi>painting>"},
				terms: []string{"start", "painting", "paint", "start painting"}, askTime: true},
			notTerms: []string{"long", "ago"}},
		{q: "What year did Ana graduate from university?",
			want:     shape{names: []string{"ana"}, actions: []string{"graduate ana>>university"}, terms: []string{"graduate", "university"}, askTime: true},
			notTerms: []string{"year"}},
		{q: "What are Ana's hobbies these days?",
			want: shape{names: []string{"ana"}, terms: []string{"hobbies", "hobby", "days", "day"}}},
		{q: "Is Ana married?",
			want: shape{names: []string{"ana"}, terms: []string{"married", "marry"}}},
		{q: "Is Bo coming to the barbecue?",
			want: shape{names: []string{"bo"}, actions: []string{"come bo>>barbecue"}, terms: []string{"coming", "come", "barbecue"}}},
		{q: "Has Bo ever visited the Museum of Modern Art?",
			want: shape{names: []string{"bo", "museum of modern art"}, actions: []string{"visit bo>museum of modern art>"},
				terms: []string{"visited", "visit"}}},
		{q: "Did the Lord of the Rings movie come out before 2005?",
			want: shape{names: []string{"lord of the rings"}, terms: []string{"movie", "come", "out", "movie come", "come out"},
				end: day(2005, 1, 1)}},
		{q: "What did Ana say on 8 May 2023 about her support groups?",
			want: shape{names: []string{"ana"}, terms: []string{"support", "groups", "group", "support group"},
				start: day(2023, 5, 8), end: day(2023, 5, 9)},
			notTerms: []string{"say"}},
		{q: "Did Ana call her mom on May 8th?",
			want: shape{names: []string{"ana"}, actions: []string{"call ana>mom>"}, terms: []string{"call", "mom"},
				start: day(2023, 5, 8), end: day(2023, 5, 9)}},
		{q: "What did Ana cook in March?",
			want: shape{names: []string{"ana"}, actions: []string{"cook ana>>"}, terms: []string{"cook"}, start: day(2024, 3, 1), end: day(2024, 4, 1)}},
		{q: "What did Ana do between March 2023 and May 2023?",
			want: shape{names: []string{"ana"}, terms: nil, start: day(2023, 3, 1), end: day(2023, 6, 1)}},
		{q: "I may visit my aunt in Toronto.",
			want: shape{names: []string{"toronto"}, terms: []string{"visit", "aunt"}}},
		{q: "May I ask what pets Bo has?",
			want: shape{names: []string{"bo"}, types: []string{"pet"}, terms: []string{"ask", "pets", "pet"}}},
		{q: "Tell me about New York.",
			want: shape{names: []string{"new york"}}},
		{q: "tell me about new york",
			want: shape{terms: []string{"new", "york", "new york"}}},
		{q: "tell me about new york", known: known("new york"),
			want: shape{names: []string{"new york"}}},
		{q: "did ana and bo go hiking last weekend", known: known("ana", "bo"),
			want: shape{names: []string{"ana", "bo"}, terms: []string{"go", "hiking", "hike", "go hiking"},
				start: day(2024, 3, 9), end: day(2024, 3, 11)}},
		{q: "Ana's favorite restaurant?",
			want: shape{terms: []string{"ana", "favorite", "restaurant", "ana favorite", "favorite restaurant"}}},
		{q: "Ana's favorite restaurant?", known: known("ana"),
			want: shape{names: []string{"ana"}, terms: []string{"favorite", "restaurant", "favorite restaurant"}}},
		{q: "what is the weather like",
			want: shape{terms: []string{"weather", "like", "weather like"}}},
	}
	for _, tt := range tests {
		t.Run(tt.q, func(t *testing.T) {
			x, err := Translator{Known: tt.known}.Translate(tt.q, now)
			if err != nil {
				t.Fatal(err)
			}
			got := shapeOf(x)
			w := tt.want
			if !slices.Equal(got.names, w.names) || !slices.Equal(got.types, w.types) || !slices.Equal(got.actions, w.actions) ||
				!slices.Equal(got.terms, w.terms) || got.askTime != w.askTime || !got.start.Equal(w.start) || !got.end.Equal(w.end) ||
				got.relation != w.relation || !slices.Equal(got.anchor, w.anchor) {
				t.Fatalf("%s\n got %+v\nwant %+v", x, got, w)
			}
			for _, n := range tt.notTerms {
				if slices.Contains(got.terms, n) {
					t.Fatalf("%q is a term: %s", n, x)
				}
			}
			roundTrip(t, x)
		})
	}
}

func TestTranslateRejects(t *testing.T) {
	for _, text := range []string{"", "   ", "What did we talk about?", "yesterday", "Is it?",
		strings.Repeat("word ", memory.MaxQueryBytes/5+1), "caf\xe9"} {
		if x, err := Translate(text, now); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%.40q: got %s %v, want EINVALID", text, x, err)
		}
	}
}

func TestTranslateCapsLeaves(t *testing.T) {
	var ws []string
	for i := range 100 {
		a, b := string(rune('a'+i/26)), string(rune('a'+i%26))
		ws = append(ws, "B"+a+b+" q"+a+b) // a name, then a word
	}
	x, err := Translate("Did "+strings.Join(ws, " ")+"?", now)
	if err != nil {
		t.Fatal(err)
	}
	if x.Select == nil || len(x.Select.Or) != MaxLeaves {
		t.Fatalf("leaves: %s", x)
	}
}
