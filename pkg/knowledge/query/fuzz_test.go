package query

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// FuzzParse: Parse never panics; what it accepts re-validates unchanged
// and round-trips through JSON; what it rejects is EINVALID.
func FuzzParse(f *testing.F) {
	for _, s := range docExamples {
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"terms": ["x"]}`, `{"select": {"not": {"not": {"term": "a"}}}}`, `{"select": {"topic": "É"}}`,
		`{"select": {"and": [{"term": "a"}, {"or": [{"term": "b"}, {"not": {"term": "c"}}]}]}}`,
		`{"select": {"action": {"verbs": ["picked up", "went"]}}, "time": {"expression": "between May 2023 and June 2023"}}`,
		`{"terms": ["x"], "time": {"start": "2023-05-01T00:00:00.5+02:00"}}`, `{"terms": ["İstanbul", "ǅ"]}`,
		`{"terms": ["a"], "limit": 1e1}`, `{"select": {"entity": {"facets": [{"name": "x", "value": null}]}}}`,
		`{"select": {"action": {"verbs": ["ab'ed", "x-ing", "tried"], "tense": "past"}}, "askTime": true}`,
		`{"terms": ["fencing"], "time": {"relation": "after", "anchor": ["lisbon"]}, "scope": {"agentId": "a2"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := Parse(data)
		if err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("%q: %v is not EINVALID", data, err)
			}
			return
		}
		again, err := x.Normalized()
		if err != nil {
			t.Fatalf("%q: accepted as %s, which does not re-validate: %v", data, x, err)
		}
		if !reflect.DeepEqual(again, x) {
			t.Fatalf("%q: normalizing twice changed %s into %s", data, x, again)
		}
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("%q: %s does not parse back: %v", data, b, err)
		}
		if !reflect.DeepEqual(back, x) {
			t.Fatalf("%q: round trip changed %s into %s", data, x, back)
		}
		// Every accepted expression runs: its terms pass the index's own
		// validation of lookups.
		ev := &Evaluator{Index: world(), Related: NoRelated{}, Now: func() time.Time { return now }}
		if _, err := ev.Evaluate(ctx, base, x); err != nil {
			t.Fatalf("%q: %s does not evaluate: %v", data, x, err)
		}
	})
}

// FuzzTranslate: the offline translator never panics, and what it returns
// is a valid expression.
func FuzzTranslate(f *testing.F) {
	for _, s := range []string{"What sports has Ana tried?", "When did Ana move to Lisbon in May 2023?",
		"What did Tom buy before the trip to Japan?", "between 1 May 2023 and 2 May 2023", "Is Bo coming?",
		"the 31st of February", "May May May 2023, 2023", "did Ana's Bo's go"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		x, err := Translate(text, now)
		if err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("%q: %v is not EINVALID", text, err)
			}
			return
		}
		if _, err := Parse([]byte(x.String())); err != nil {
			t.Fatalf("%q: translated into %s, which does not parse: %v", text, x, err)
		}
	})
}

// FuzzTimeGrammar: the time grammar never panics on free text, and every
// range it reads is well formed: a bound is open (zero) or a time, and a
// closed range ends after it starts. ResolveTime's errors are EINVALID.
func FuzzTimeGrammar(f *testing.F) {
	for _, s := range []string{"When did Ana go camping in June?", "two weekends ago", "last Fri", "between May and",
		"the 31st of February 2023", "for 4 years", "I just got accepted", "How many days a week does Ana run?",
		"in the summer of 1999", "3 weeks back", "yesterday, the day before", "May 8, 2023 at 10", "next next week",
		"since 0 years", "9999999999 days ago", "Which weekend did Bo go?", "a decade ago"} {
		f.Add(s)
	}
	wellFormed := func(t *testing.T, what, text string, r Range) {
		t.Helper()
		if !r.Start.IsZero() && !r.End.IsZero() && !r.End.After(r.Start) {
			t.Fatalf("%s(%q) = [%s, %s): the range does not end after it starts", what, text, r.Start, r.End)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		if r, ok := FindTime(text, now); ok {
			wellFormed(t, "FindTime", text, r)
		}
		r, err := ResolveTime(text, now)
		if err != nil {
			if memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("ResolveTime(%q): %v is not EINVALID", text, err)
			}
		} else {
			wellFormed(t, "ResolveTime", text, r)
		}
		AsksWhen(text)
		StatesTime(text)
	})
}
