package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// planModel is a memory.LLM that answers every call with raw or err, or,
// with block, waits for the call's context to end; it records the calls
// and runs onCall first, when set.
type planModel struct {
	raw    string
	err    error
	block  bool
	onCall func()
	calls  []planCall
}

// planCall is one request the planModel got.
type planCall struct {
	system, user string
	tool         memory.Tool
}

func (m *planModel) Call(ctx context.Context, system, user string, tool memory.Tool) (json.RawMessage, memory.Usage, error) {
	m.calls = append(m.calls, planCall{system, user, tool})
	if m.onCall != nil {
		m.onCall()
	}
	if m.block {
		<-ctx.Done()
		return nil, memory.Usage{}, memory.Errorf(memory.EUNAVAILABLE, "model: %v", ctx.Err())
	}
	return json.RawMessage(m.raw), memory.Usage{Calls: 1}, m.err
}

func TestLLMPlanner(t *testing.T) {
	const joined = "What did John do after the boot camp?"
	offline := Decompose(joined)
	if len(offline.Subs) != 2 {
		t.Fatalf("the offline plan of %q is %+v: the cases below need two parts", joined, offline)
	}
	long := strings.Repeat("x", MaxSubQueryChars+1)
	for _, c := range []struct {
		name     string
		model    planModel
		want     Plan
		fallback bool
	}{
		{"a valid plan", planModel{raw: `{"subQueries": [" What did  John do? ", "John's boot camp"], "spread": false}`},
			Plan{Subs: []string{"What did John do?", "John's boot camp"}}, false},
		{"spread and no parts", planModel{raw: `{"subQueries": [], "spread": true}`}, Plan{Spread: true}, false},
		{"subQueries left out", planModel{raw: `{"spread": true}`}, offline, true},
		{"spread left out", planModel{raw: `{"subQueries": []}`}, offline, true},
		{"another tool's answer", planModel{raw: `{"messages": []}`}, offline, true},
		{"a repeated part is dropped", planModel{raw: `{"subQueries": ["John's boot camp", "john's boot CAMP"], "spread": true}`},
			Plan{Subs: []string{"John's boot camp"}, Spread: true}, false},
		{"a part of the longest length", planModel{raw: `{"subQueries": ["` + long[1:] + `"], "spread": false}`},
			Plan{Subs: []string{long[1:]}}, false},
		{"too many sub-queries", planModel{raw: `{"subQueries": ["a b", "c d", "e f", "g h"], "spread": false}`}, offline, true},
		{"an empty sub-query", planModel{raw: `{"subQueries": ["What did John do?", "  "], "spread": false}`}, offline, true},
		{"a sub-query too long", planModel{raw: `{"subQueries": ["` + long + `"], "spread": false}`}, offline, true},
		{"a sub-query not a string", planModel{raw: `{"subQueries": [3], "spread": false}`}, offline, true},
		{"spread not a boolean", planModel{raw: `{"subQueries": [], "spread": "yes"}`}, offline, true},
		{"invalid JSON", planModel{raw: `{"subQueries": [`}, offline, true},
		{"null", planModel{raw: `null`}, offline, true},
		{"a model error", planModel{err: memory.Errorf(memory.EUNAVAILABLE, "bedrock: throttled")}, offline, true},
		{"a timeout", planModel{block: true}, offline, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := c.model
			p := &LLMPlanner{LLM: &m, Timeout: time.Millisecond}
			if !c.model.block {
				p.Timeout = 0 // the default: no call here waits
			}
			got, err := p.Plan(context.Background(), joined)
			if err != nil {
				t.Fatal(err)
			}
			if got.Spread != c.want.Spread || !slices.Equal(got.Subs, c.want.Subs) {
				t.Errorf("plan %+v, want %+v", got, c.want)
			}
			if n := p.Fallbacks(); (n == 1) != c.fallback || n > 1 {
				t.Errorf("%d fallbacks, want fallback %v", n, c.fallback)
			}
			if len(m.calls) != 1 {
				t.Fatalf("%d calls, want 1", len(m.calls))
			}
			call := m.calls[0]
			if call.tool.Name != PlanToolName || call.user != "Question: "+joined || !strings.Contains(call.system, PlanToolName) {
				t.Errorf("call %+v: want the question and the forced %s", call, PlanToolName)
			}
		})
	}
}

// TestLLMPlannerNoCall checks the questions planned without a call: an
// empty one, and any without a model.
func TestLLMPlannerNoCall(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *LLMPlanner
		text string
	}{
		{"an empty question", &LLMPlanner{LLM: &planModel{raw: `{"subQueries": ["a b"], "spread": true}`}}, "  "},
		{"no model", &LLMPlanner{}, "What did John do after the boot camp?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.p.Plan(context.Background(), c.text)
			want := Decompose(c.text)
			if err != nil || got.Spread != want.Spread || !slices.Equal(got.Subs, want.Subs) {
				t.Errorf("plan %+v %v, want the offline %+v", got, err, want)
			}
			if m, ok := c.p.LLM.(*planModel); ok && len(m.calls) != 0 {
				t.Errorf("%d calls, want none", len(m.calls))
			}
		})
	}
}

// TestLLMPlannerDoneContext checks that a done context is the planner's
// error, not a fallback, whether it ends before or during the call.
func TestLLMPlannerDoneContext(t *testing.T) {
	for _, c := range []struct {
		name   string
		during bool
	}{
		{"done before", false},
		{"done during the call", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			m := planModel{block: true}
			if c.during {
				m.onCall = cancel
			} else {
				cancel()
			}
			p := &LLMPlanner{LLM: &m}
			if _, err := p.Plan(ctx, "What did John do after the boot camp?"); !errors.Is(err, context.Canceled) {
				t.Errorf("err %v, want context.Canceled", err)
			}
			if p.Fallbacks() != 0 {
				t.Errorf("%d fallbacks, want none", p.Fallbacks())
			}
		})
	}
}

// TestPlanTool checks that the tool's schema suits strict JSON-schema
// output: every property required, no other allowed.
func TestPlanTool(t *testing.T) {
	s := PlanTool().Schema
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	if s["additionalProperties"] != false || len(props) != len(req) {
		t.Fatalf("schema %v: want every property required and no other allowed", s)
	}
	for _, r := range req {
		if props[r.(string)] == nil {
			t.Errorf("required %q is not a property", r)
		}
	}
}
