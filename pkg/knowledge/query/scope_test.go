package query

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestScopeValidation: the range and topic parts of a scope are checked
// and their errors name the field.
func TestScopeValidation(t *testing.T) {
	for _, c := range []struct{ scope, field string }{
		{`{"fromPosition": 2}`, "scope.fromPosition"},
		{`{"documentId": "d", "fromPosition": -1}`, "scope.fromPosition"},
		{`{"documentId": "d", "fromPosition": 1.5}`, "scope.fromPosition"},
		{`{"documentId": "d", "fromPosition": 4, "toPosition": 2}`, "scope.toPosition"},
		{`{"toMessageId": "m1"}`, "scope.toMessageId"},
		{`{"sessionId": "s", "fromTime": "yesterday"}`, "scope.fromTime"},
		{`{"sessionId": "s", "fromTime": "2024-03-02T00:00:00Z", "toTime": "2024-03-01T00:00:00Z"}`, "scope.toTime"},
		{`{"sessionId": "s", "fromMessageId": "m1", "fromTime": "2024-03-02T00:00:00Z"}`, "scope.fromTime"},
		{`{"topic": " ?! "}`, "scope.topic"},
		{`{"topic": 3}`, "scope.topic"},
		{`{"documentId": "` + strings.Repeat("d", memory.MaxIDLen+1) + `"}`, "scope.documentId"},
		{`{"pages": [1, 2]}`, "scope.pages"},
	} {
		_, err := Parse([]byte(`{"terms": ["fencing"], "scope": ` + c.scope + `}`))
		if memory.ErrorCode(err) != memory.EINVALID || !strings.HasPrefix(memory.ErrorMessage(err), c.field+":") {
			t.Errorf("scope %s: %v, want EINVALID naming %s", c.scope, err, c.field)
		}
	}
	x, err := Parse([]byte(`{"terms": ["fencing"], "scope": {"documentId": "d", "fromPosition": 0, "toPosition": 3, "topic": "Fencing  Class"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if sc := x.Scope; sc.DocumentID != "d" || *sc.FromPosition != 0 || *sc.ToPosition != 3 || sc.Topic != "fencing class" || !sc.Ranged() {
		t.Errorf("normalized scope %+v", sc)
	}
}

// scopeStub resolves every ranged scope to fixed ids, and records the
// filter it was given.
type scopeStub struct {
	ids []string
	got memory.Filter
}

func (s *scopeStub) ResolveScope(_ context.Context, f memory.Filter, _ Scope) (ScopeSet, error) {
	s.got = f
	out := ScopeSet{IDs: map[string]bool{}}
	for _, id := range s.ids {
		out.IDs[id] = true
	}
	return out, nil
}

// TestEvaluateRangedScope: a ranged scope keeps the memories its resolver
// keeps, within the caller's filter narrowed by the scope's session and
// document; none kept is an empty result; no resolver is a 400.
func TestEvaluateRangedScope(t *testing.T) {
	idx := world()
	topic := "fencing"
	cases := []struct {
		name  string
		ids   []string
		scope Scope
		want  []string
	}{
		{"keeps m2 of m2 and m6", []string{"m2"}, Scope{Topic: topic}, []string{"m2"}},
		{"keeps both", []string{"m2", "m6"}, Scope{Topic: topic}, []string{"m2", "m6"}},
		{"keeps none", nil, Scope{Topic: topic}, nil},
		{"another org's memory is not brought in", []string{"x1"}, Scope{Topic: topic}, nil},
		{"session narrowed", []string{"m2"}, Scope{SessionID: "s9", Topic: topic}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			stub := &scopeStub{ids: c.ids}
			ev := &Evaluator{Index: idx, Scopes: stub}
			sc := c.scope
			res, err := ev.Evaluate(ctx, memory.Filter{OrgID: org}, &Expr{Terms: []string{"fencing"}, Scope: &sc})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range res.Memories {
				got = append(got, m.ID)
			}
			slices.Sort(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
			if len(c.ids) > 0 && (stub.got.OrgID != org || stub.got.SessionID != c.scope.SessionID) {
				t.Errorf("resolver given %+v", stub.got)
			}
		})
	}
	ev := &Evaluator{Index: idx}
	_, err := ev.Evaluate(ctx, memory.Filter{OrgID: org}, &Expr{Terms: []string{"fencing"}, Scope: &Scope{Topic: topic}})
	if memory.ErrorCode(err) != memory.EINVALID || !strings.HasPrefix(memory.ErrorMessage(err), "scope:") {
		t.Errorf("without a resolver: %v, want EINVALID naming scope", err)
	}
	// a document scope alone narrows like a room, without a resolver
	res, err := ev.Evaluate(ctx, memory.Filter{OrgID: org}, &Expr{Terms: []string{"fencing"}, Scope: &Scope{DocumentID: "d1"}})
	if err != nil || len(res.Memories) != 0 {
		t.Errorf("document scope over memories of no document: %+v, %v", res, err)
	}
}
