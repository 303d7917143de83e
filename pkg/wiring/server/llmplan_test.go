package server_test

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// TestLLMDecomposition runs the real wiring (server.Open) with a Bedrock
// model configured, against the fake Bedrock runtime, and checks that a
// search in mode full asks the model for a plan (the forced plan_question
// tool, the question) and searches its sub-queries: the memory that the
// first sub-query's words find comes first in the decompose list (its
// parts are taken in turn), for a question the offline rules do not
// split. When the model fails, the same search
// is planned offline and succeeds, with no decompose list. The model's
// knowledge extraction is answered with a failure (the offline extractor
// keeps its knowledge).
func TestLLMDecomposition(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	const question = "What did Maya cook for her friends?"
	if p := retrieval.Decompose(question); len(p.Subs) != 0 || p.Spread {
		t.Fatalf("the offline plan of %q is %+v: the test needs none", question, p)
	}
	var (
		mu    sync.Mutex
		plans []modelCall
		down  atomic.Bool
	)
	f := testenv.StartBedrock(t, &testenv.Bedrock{Region: "us-east-1", Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
		tool, schema := req.ForcedTool()
		if tool != retrieval.PlanToolName || down.Load() {
			testenv.BedrockFail(w, 400, "ValidationException", "model down")
			return
		}
		user, _ := req.OneUserMessage()
		mu.Lock()
		plans = append(plans, modelCall{user: user, tool: tool, schema: schema})
		mu.Unlock()
		testenv.ConverseToolUse(w, tool, map[string]any{
			"subQueries": []any{"Maya's dinner party risotto", "What did Maya cook?"}, "spread": false})
	}})
	ctx := context.Background()
	b := openWithBedrock(t, f.URL, nil)
	caller := memory.Caller{OrgID: "acme"}
	var party string
	for _, text := range []string{
		"I finally read The Innovator's Dilemma on the flight.",
		"We hiked to the lighthouse at dawn.",
		"The dinner party was on Friday: risotto for eight.",
		"My friends from the choir came over on Sunday.",
	} {
		res, err := b.Service.Create(ctx, caller, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya", RoomID: "home",
			Content: memory.Content{Text: text}}})
		if err != nil {
			t.Fatal(err)
		}
		if text[:4] == "The " {
			party = res[0].ID
		}
	}
	search := func() *service.SearchResponse {
		t.Helper()
		res, err := b.Service.SearchRanked(ctx, caller, service.SearchRequest{Query: question, Mode: service.ModeFull, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := search()
	mu.Lock()
	got := slices.Clone(plans)
	mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d plan_question calls, want 1", len(got))
	}
	var schema struct {
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(got[0].schema, &schema); err != nil || !slices.Contains(schema.Required, "subQueries") ||
		got[0].user != "Question: "+question {
		t.Errorf("the model got %q with schema %s: want the question and the plan_question schema", got[0].user, got[0].schema)
	}
	if i := slices.IndexFunc(res.Results, func(r service.SearchResult) bool { return r.Memory.ID == party }); i < 0 ||
		res.Results[i].Scores[retrieval.ListDecompose] == nil || res.Results[i].Scores[retrieval.ListDecompose].Rank != 1 {
		t.Errorf("results %+v: want the dinner party (%s) first in the %s list", scoresOf(res), party, retrieval.ListDecompose)
	}

	// The model fails: planned offline, no parts, no decompose list.
	down.Store(true)
	res = search()
	for _, r := range res.Results {
		if r.Scores[retrieval.ListDecompose] != nil {
			t.Errorf("with the model down, %s has a %s score: want the offline plan (none)", r.Memory.ID, retrieval.ListDecompose)
		}
	}
	if len(res.Results) == 0 {
		t.Error("with the model down, the search found nothing")
	}
}

// TestLLMQueriesOff checks LLM_QUERIES=false: with a model configured for
// extraction, a full search and a natural-language knowledge search call
// it for nothing (no plan, no translation), and still answer.
func TestLLMQueriesOff(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	var calls atomic.Int64
	f := testenv.StartBedrock(t, &testenv.Bedrock{Region: "us-east-1", Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
		if tool, _ := req.ForcedTool(); tool == retrieval.PlanToolName || tool == query.ToolName {
			calls.Add(1)
		}
		testenv.BedrockFail(w, 400, "ValidationException", "not for searches")
	}})
	ctx := context.Background()
	b := openWithBedrock(t, f.URL, map[string]string{"LLM_QUERIES": "false"})
	caller := memory.Caller{OrgID: "acme"}
	if _, err := b.Service.Create(ctx, caller, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya", RoomID: "home",
		Content: memory.Content{Text: "The dinner party was on Friday: risotto for eight."}}}); err != nil {
		t.Fatal(err)
	}
	res, err := b.Service.SearchRanked(ctx, caller, service.SearchRequest{Query: "What did Maya cook for her friends?", Mode: service.ModeFull, K: 10})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("full search: %v, %d results; want the party", err, len(res.Results))
	}
	if _, err := b.Knowledge.Search(ctx, caller, knowledge.SearchRequest{Text: "Which dishes did Maya cook?"}); err != nil {
		t.Fatalf("knowledge search: %v", err)
	}
	if n := calls.Load(); n != 0 {
		t.Errorf("%d search calls reached the model with LLM_QUERIES=false, want 0", n)
	}
}

// openWithBedrock opens memoryd's wiring (openWith) with a Bedrock chat
// model served at endpoint, and env's variables over those.
func openWithBedrock(t *testing.T, endpoint string, env map[string]string) *server.Backend {
	t.Helper()
	vars := map[string]string{"LLM_PROVIDER": "bedrock", "LLM_MODEL": "anthropic.claude-3-5-haiku-20241022-v1:0",
		"BEDROCK_ENDPOINT": endpoint, "AWS_REGION": "us-east-1"}
	maps.Copy(vars, env)
	return openWith(t, vars)
}

// openWith opens memoryd's wiring (server.Open) on a temporary directory
// and the hashing embedder, with env's variables over those; closed when
// the test ends.
func openWith(t *testing.T, env map[string]string) *server.Backend {
	t.Helper()
	vars := map[string]string{"DATA_DIR": t.TempDir(), "EMBEDDER": "hash"}
	maps.Copy(vars, env)
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	b, err := server.Open(context.Background(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// scoresOf is each result's id and list ranks, for failure messages.
func scoresOf(res *service.SearchResponse) map[string]map[string]int {
	out := map[string]map[string]int{}
	for _, r := range res.Results {
		out[r.Memory.ID] = map[string]int{}
		for l, s := range r.Scores {
			out[r.Memory.ID][l] = s.Rank
		}
	}
	return out
}
