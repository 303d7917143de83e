package query

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// docExamples are the examples of the package documentation.
var docExamples = []string{
	`{"select": {"or": [
	   {"entity": {"name": "ana"}},
	   {"entity": {"types": ["sport"]}},
	   {"action": {"verbs": ["try"], "subject": "ana"}}]},
	 "terms": ["sports"]}`,
	`{"select": {"and": [
	   {"entity": {"types": ["restaurant"]}},
	   {"not": {"property": {"name": "cuisine", "value": "italian"}}}]},
	 "time": {"expression": "last year"}}`,
	`{"select": {"action": {"verbs": ["move"], "subject": "Ana", "indirectObject": "Lisbon"}},
	 "askTime": true}`,
	`{"select": {"entity": {"types": ["person"], "facets": [{"name": "status", "value": "vegetarian"}]}},
	 "scope": {"roomId": "kitchen"}}`,
	`{"select": {"action": {"verbs": ["buy"], "subject": "Bo"}},
	 "time": {"relation": "before", "anchor": ["move"]}}`,
	// the brief's full example
	`{"select": {"and": [
	   {"entity": {"name": "Ana", "types": ["person"], "facets": [{"name": "color", "value": "blue"}]}},
	   {"action": {"verbs": ["move"], "subject": "Ana", "object": "", "indirectObject": "Lisbon", "tense": "past"}},
	   {"or": [{"topic": "travel"}, {"term": "fencing"}, {"property": {"name": "diet", "value": "vegetarian"}}]}]},
	 "terms": ["sports", "climbing"],
	 "time": {"start": "2023-05-01T00:00:00Z", "end": "2023-06-01T00:00:00Z"},
	 "scope": {"roomId": "r1", "sessionId": "s1", "agentId": "a1"},
	 "relatedTerms": true, "limit": 20}`,
}

func TestDocExamplesParse(t *testing.T) {
	for _, src := range docExamples {
		x, err := Parse([]byte(src))
		if err != nil {
			t.Errorf("%s:\n%v", src, err)
			continue
		}
		roundTrip(t, x)
	}
}

// roundTrip checks that x re-validates unchanged and survives JSON.
func roundTrip(t *testing.T, x *Expr) {
	t.Helper()
	again, err := x.Normalized()
	if err != nil {
		t.Fatalf("normalized expression %s does not re-validate: %v", x, err)
	}
	if !reflect.DeepEqual(again, x) {
		t.Fatalf("normalizing twice changed\n%s\ninto\n%s", x, again)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatalf("%s does not parse back: %v", b, err)
	}
	if !reflect.DeepEqual(back, x) {
		t.Fatalf("round trip changed\n%s\ninto\n%s", x, back)
	}
}

func TestParseNormalizes(t *testing.T) {
	yes := true
	tests := []struct {
		name, src string
		want      *Expr
	}{
		{"terms alone, normalized and distinct", `{"terms": ["  Sports ", "sports!", "Rock  Climbing"]}`,
			&Expr{Terms: []string{"sports", "rock climbing"}}},
		{"verbs lemmatized, phrasal particle kept", `{"select": {"action": {"verbs": ["Moved", "picked up", "went", "move"], "subject": "ANA"}}}`,
			&Expr{Select: &Node{Action: &ActionLeaf{Verbs: []string{"move", "pick up", "go"}, Subject: "ana"}}}},
		{"empty strings are absent", `{"select": {"action": {"verbs": ["read"], "object": "", "tense": ""}}, "time": {"expression": "Last  Month", "start": ""}}`,
			&Expr{Select: &Node{Action: &ActionLeaf{Verbs: []string{"read"}}}, Time: &Time{Expression: "last month"}}},
		{"null is absent", `{"select": {"term": "Jazz", "and": null}, "scope": null, "limit": 5}`,
			&Expr{Select: &Node{Term: "jazz"}, Limit: 5}},
		{"facets deduplicated, value optional", `{"select": {"entity": {"facets": [{"name": "Color", "value": "Blue"}, {"name": "color", "value": "blue"}, {"name": "age"}]}}}`,
			&Expr{Select: &Node{Entity: &EntityLeaf{Facets: []FacetTerm{{Name: "color", Value: "blue"}, {Name: "age"}}}}}},
		{"empty scope dropped", `{"terms": ["x"], "scope": {}, "relatedTerms": true}`,
			&Expr{Terms: []string{"x"}, RelatedTerms: &yes}},
		{"not beside terms", `{"select": {"not": {"topic": "work"}}, "terms": ["holiday"]}`,
			&Expr{Select: &Node{Not: &Node{Topic: "work"}}, Terms: []string{"holiday"}}},
		{"not of not is positive", `{"select": {"not": {"not": {"topic": "work"}}}}`,
			&Expr{Select: &Node{Not: &Node{Not: &Node{Topic: "work"}}}}},
		{"or with a negation inside an and", `{"select": {"and": [{"term": "a"}, {"or": [{"term": "b"}, {"not": {"term": "c"}}]}]}}`,
			&Expr{Select: &Node{And: []Node{{Term: "a"}, {Or: []Node{{Term: "b"}, {Not: &Node{Term: "c"}}}}}}}},
		{"time relation", `{"terms": ["gift"], "time": {"relation": "after", "anchor": ["Wedding", "wedding"], "end": "2024-01-01T00:00:00+01:00"}}`,
			&Expr{Terms: []string{"gift"}, Time: &Time{Relation: "after", Anchor: []string{"wedding"}, End: "2024-01-01T00:00:00+01:00"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			roundTrip(t, got)
		})
	}
}

func TestParseErrors(t *testing.T) {
	deep := `{"term": "x"}`
	for range MaxDepth {
		deep = `{"not": ` + deep + `}`
	}
	var many []string
	for i := range MaxLeaves + 1 {
		many = append(many, `{"term": "t`+strings.Repeat("x", i)+`"}`)
	}
	tests := []struct{ src, want string }{
		{``, "expression: not valid JSON: unexpected end"},
		{`[]`, "expression: must be an object"},
		{`{}`, "expression: select or terms required"},
		{`{"terms": []}`, "expression: select or terms required"},
		{`{"terms": ["x"]} {}`, "expression: data after the JSON value"},
		{`{"terms": ["x"], "foo": 1}`, "foo: unknown field"},
		{`{"terms": ["x"], "terms": ["y"]}`, "terms: duplicate key"},
		{`{"terms": "x"}`, "terms: must be an array"},
		{`{"terms": ["x", 3]}`, "terms[1]: must be a string"},
		{`{"terms": ["x", "!!!"]}`, "terms[1]: empty after normalization (only punctuation, space or invalid UTF-8)"},
		{`{"terms": ["` + strings.Repeat("a", memory.MaxTermBytes+1) + `"]}`, "terms[0]: longer than 256 bytes or holds control characters"},
		{`{"terms": ["` + strings.Repeat("a", MaxStringBytes+1) + `"]}`, "terms[0]: longer than 1024 bytes"},
		{`{"terms": ["a\u0001b"]}`, "terms[0]: longer than 256 bytes or holds control characters"},
		{`{"select": {}}`, "select: exactly one of and, or, not, entity, action, topic, term, property"},
		{`{"select": {"term": "a", "topic": "b"}}`, "select: exactly one of and, or, not, entity, action, topic, term, property"},
		{`{"select": {"and": []}}`, "select.and: at least one child required"},
		{`{"select": {"and": [{"term": "a"}, {"term": "b"}, {"entity": {"facets": [{"value": "blue"}]}}]}}`, "select.and[2].entity.facets[0].name: required"},
		{`{"select": {"or": [{"term": "a"}, {"entity": {"nme": "Ana"}}]}}`, "select.or[1].entity.nme: unknown field"},
		{`{"select": {"entity": {"name": "Ana", "a b": 1}}}`, `select.entity["a b"]: unknown field`},
		{`{"select": {"entity": {}}}`, "select.entity: one of name, types, facets required"},
		{`{"select": {"entity": {"types": "person"}}}`, "select.entity.types: must be an array"},
		{`{"select": {"entity": {"types": ["a","b","c","d","e","f","g","h","i"]}}}`, "select.entity.types: more than 8 items"},
		{`{"select": {"action": {"tense": "past"}}}`, "select.action: one of verbs, subject, object, indirectObject required"},
		{`{"select": {"action": {"verbs": ["go"], "tense": "later"}}}`, `select.action.tense: "later" is not one of past, present, future`},
		{`{"select": {"action": {"verbs": ["go"], "subject": 7}}}`, "select.action.subject: must be a string"},
		{`{"select": {"property": {"name": "diet"}}}`, "select.property.value: required"},
		{`{"select": {"topic": ""}}`, "select.topic: required"},
		{`{"select": {"not": {"term": "a"}}}`, "select: matches only by exclusion (not); add a positive condition beside it in an and, or terms"},
		{`{"select": {"or": [{"term": "a"}, {"not": {"term": "b"}}]}}`, "select: matches only by exclusion (not); add a positive condition beside it in an and, or terms"},
		{`{"select": ` + deep + `}`, "select" + strings.Repeat(".not", MaxDepth) + ": deeper than 8 levels"},
		{`{"select": {"or": [` + strings.Join(many, ",") + `]}}`, "select.or: more than 64 children"},
		{`{"terms": ["x"], "time": {"start": "May 2023"}}`, "time.start: not RFC 3339 (2023-05-01T00:00:00Z)"},
		{`{"terms": ["x"], "time": {"start": "1969-12-31T00:00:00Z"}}`, "time.start: before 1970"},
		{`{"terms": ["x"], "time": {"start": "2023-05-01T00:00:00Z", "end": "2023-05-01T00:00:00Z"}}`, "time.end: must be after time.start"},
		{`{"terms": ["x"], "time": {"expression": "last month", "end": "2023-05-01T00:00:00Z"}}`, "time.expression: excludes start and end"},
		{`{"terms": ["x"], "time": {"expression": "when pigs fly"}}`, `time.expression: "when pigs fly" is not a time expression this language knows (see the package documentation)`},
		{`{"terms": ["x"], "time": {"relation": "during", "anchor": ["trip"]}}`, `time.relation: "during" is not one of before, after`},
		{`{"terms": ["x"], "time": {"relation": "before"}}`, "time.anchor: required with time.relation"},
		{`{"terms": ["x"], "time": {"anchor": ["trip"]}}`, "time.relation: required with time.anchor"},
		{`{"terms": ["x"], "time": {}}`, "time: one of start, end, expression, relation required"},
		{`{"terms": ["x"], "scope": {"roomId": "` + strings.Repeat("r", memory.MaxIDLen+1) + `"}}`, "scope.roomId: longer than 128 characters"},
		{`{"terms": ["x"], "scope": {"room": "r"}}`, "scope.room: unknown field"},
		{`{"terms": ["x"], "limit": 0.5}`, "limit: must be an integer from 1 to 100"},
		{`{"terms": ["x"], "limit": 101}`, "limit: must be an integer from 1 to 100"},
		{`{"terms": ["x"], "relatedTerms": "yes"}`, "relatedTerms: must be true or false"},
		{"{\"terms\": [\"\xff\"]}", "expression: not valid UTF-8"},
		{`{"terms": [` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `]}`, "terms[0]" + strings.Repeat("[0]", maxJSONDepth-1) + ": nested too deeply"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.src))
		if memory.ErrorCode(err) != memory.EINVALID || memory.ErrorMessage(err) != tt.want {
			src := tt.src
			if len(src) > 120 {
				src = src[:120] + "..."
			}
			t.Errorf("%s:\n got %v\nwant %s", src, err, tt.want)
		}
	}
}

func TestNormalizedErrorsOnGoValues(t *testing.T) {
	tests := []struct {
		x    *Expr
		want string
	}{
		{nil, "expression: required"},
		{&Expr{Terms: []string{"x"}, Limit: -1}, "limit: -1 is outside 1..100"},
		{&Expr{Select: &Node{And: []Node{}}}, "select.and: at least one child required"},
		{&Expr{Select: &Node{Or: []Node{{Term: "a"}, {}}}}, "select.or[1]: exactly one of and, or, not, entity, action, topic, term, property"},
		{&Expr{Select: &Node{Property: &PropertyLeaf{Value: "x"}}}, "select.property.name: required"},
	}
	for _, tt := range tests {
		_, err := tt.x.Normalized()
		if memory.ErrorCode(err) != memory.EINVALID || memory.ErrorMessage(err) != tt.want {
			t.Errorf("%v: got %v, want %s", tt.x, err, tt.want)
		}
	}
}

func TestParseTooLarge(t *testing.T) {
	big := `{"terms": ["x"], "time": {"expression": "` + strings.Repeat(" ", MaxExprBytes) + `today"}}`
	if _, err := Parse([]byte(big)); memory.ErrorMessage(err) != "expression: larger than 65536 bytes" {
		t.Fatalf("got %v", err)
	}
}
