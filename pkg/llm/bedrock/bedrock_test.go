package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

var ctx = context.Background()

// fakeBedrock plays the embedding and Converse models behind the shared
// fake Bedrock: it checks what the SDK sends as Bedrock would (content
// types, body shape per model family) and answers in the documented
// formats.
type fakeBedrock struct {
	testenv.Bedrock
	t          *testing.T
	malformed  atomic.Bool // answer 200 with a body that is not the documented shape
	noToolUse  atomic.Bool // Converse answers with text instead of calling the tool
	mu         sync.Mutex
	inputTypes []string
}

var fail = testenv.BedrockFail

func (f *fakeBedrock) invoke(w http.ResponseWriter, r *http.Request, model string, body []byte) {
	switch {
	case model == bedrock.TitanEmbedV2:
		f.titan(w, r, body)
	case strings.HasPrefix(model, "cohere.embed-"):
		f.cohere(w, r, body)
	default:
		fail(w, 400, "ValidationException", "unsupported invoke on "+model)
	}
}

func strictKeys(body []byte, want ...string) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, err
	}
	if len(m) != len(want) {
		return nil, fmt.Errorf("keys %v, want %v", keys(m), want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			return nil, fmt.Errorf("missing %q in %v", k, keys(m))
		}
	}
	return m, nil
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func vector(text string, dims int) []float32 {
	v, _ := hashing.New(dims).Embed(ctx, []string{text}, memory.PurposeDocument)
	return v[0]
}

func (f *fakeBedrock) titan(w http.ResponseWriter, r *http.Request, body []byte) {
	if r.Header.Get("Content-Type") != "application/json" || r.Header.Get("Accept") != "application/json" {
		fail(w, 400, "ValidationException", "content type and accept must be application/json")
		return
	}
	var req struct {
		InputText  string `json:"inputText"`
		Dimensions int    `json:"dimensions"`
		Normalize  bool   `json:"normalize"`
	}
	if _, err := strictKeys(body, "inputText", "dimensions", "normalize"); err != nil {
		fail(w, 400, "ValidationException", "titan body: "+err.Error())
		return
	}
	json.Unmarshal(body, &req)
	if req.InputText == "" || (req.Dimensions != 256 && req.Dimensions != 512 && req.Dimensions != 1024) || !req.Normalize {
		fail(w, 400, "ValidationException", fmt.Sprintf("titan request %+v", req))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if f.malformed.Load() {
		fmt.Fprint(w, `{"embedding": "not a vector", "inputTextTokenCount": 3}`)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"embedding": vector(req.InputText, req.Dimensions), "inputTextTokenCount": len(strings.Fields(req.InputText))})
}

func (f *fakeBedrock) cohere(w http.ResponseWriter, r *http.Request, body []byte) {
	var req struct {
		Texts     []string `json:"texts"`
		InputType string   `json:"input_type"`
		Truncate  string   `json:"truncate"`
	}
	if _, err := strictKeys(body, "texts", "input_type", "truncate"); err != nil {
		fail(w, 400, "ValidationException", "cohere body: "+err.Error())
		return
	}
	json.Unmarshal(body, &req)
	if len(req.Texts) == 0 || len(req.Texts) > 96 || (req.InputType != "search_document" && req.InputType != "search_query") || req.Truncate != "END" {
		fail(w, 400, "ValidationException", fmt.Sprintf("cohere request: %d texts, input_type %q, truncate %q", len(req.Texts), req.InputType, req.Truncate))
		return
	}
	f.mu.Lock()
	f.inputTypes = append(f.inputTypes, req.InputType)
	f.mu.Unlock()
	var embs [][]float32
	for _, t := range req.Texts {
		v := vector(t, 1024)
		for i := range v {
			v[i] *= 3 // Cohere's vectors are not unit length
		}
		embs = append(embs, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if f.malformed.Load() {
		embs = embs[:len(embs)-1] // one vector short
	}
	json.NewEncoder(w).Encode(map[string]any{"id": "emb-1", "embeddings": embs, "texts": req.Texts, "response_type": "embeddings_floats"})
}

func (f *fakeBedrock) converse(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
	tool, schema := req.ForcedTool()
	var js struct {
		Type string `json:"type"`
	}
	json.Unmarshal(schema, &js)
	if user, ok := req.OneUserMessage(); !ok || user == "" || req.System[0].Text == "" || req.InferenceConfig.MaxTokens == 0 ||
		req.InferenceConfig.Temperature == nil || *req.InferenceConfig.Temperature != 0 || tool == "" || js.Type != "object" {
		fail(w, 400, "ValidationException", "converse request shape: "+string(req.Body))
		return
	}
	if f.noToolUse.Load() {
		testenv.ConverseText(w, "I think the user likes tea.")
		return
	}
	testenv.ConverseToolUse(w, tool, map[string]any{"facts": []any{map[string]any{"text": "User prefers tea", "kind": "preference", "confidence": 0.9}}})
}

func start(t *testing.T) (*fakeBedrock, bedrock.ClientOptions) {
	f := &fakeBedrock{t: t}
	f.Invoke, f.Converse = f.invoke, f.converse
	testenv.StartBedrock(t, &f.Bedrock)
	return f, bedrock.ClientOptions{Endpoint: f.URL, AccessKey: "local", SecretKey: "local", MaxBackoff: 50 * time.Millisecond}
}

func embedder(t *testing.T, o bedrock.ClientOptions, eo bedrock.EmbedderOptions) *bedrock.Embedder {
	t.Helper()
	c, err := bedrock.NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	e, err := bedrock.NewEmbedder(c, eo)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

func TestTitanEmbeddings(t *testing.T) {
	f, o := start(t)
	f.Delay = 20 * time.Millisecond
	e := embedder(t, o, bedrock.EmbedderOptions{Model: bedrock.TitanEmbedV2, Dimensions: 256, Concurrency: 3})
	var texts []string
	for i := 0; i < 12; i++ {
		texts = append(texts, fmt.Sprintf("text number %d about tea", i))
	}
	vs, err := e.Embed(ctx, texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 12 || len(vs[0]) != 256 || e.Dimensions() != 256 || e.Model() != "bedrock:amazon.titan-embed-text-v2:0:256" {
		t.Fatalf("%d vectors of %d dims, model %s", len(vs), len(vs[0]), e.Model())
	}
	for i, v := range vs {
		if c := cos(v, vector(texts[i], 256)); c < 0.9999 {
			t.Fatalf("vector %d is not the one for its text (cosine %v)", i, c)
		}
	}
	if f.Requests.Load() != 12 || f.MaxFlight.Load() > 3 {
		t.Fatalf("%d requests, %d at once; want 12 with at most 3 at once", f.Requests.Load(), f.MaxFlight.Load())
	}
	if e.InputTokens() == 0 {
		t.Fatal("input tokens not counted")
	}
	// Cached: no new request.
	if _, err := e.Embed(ctx, texts[:5], memory.PurposeDocument); err != nil || f.Requests.Load() != 12 {
		t.Fatalf("cached texts made %d requests (%v)", f.Requests.Load()-12, err)
	}
}

func TestCohereEmbeddings(t *testing.T) {
	f, o := start(t)
	e := embedder(t, o, bedrock.EmbedderOptions{Model: bedrock.CohereEmbedEnV3})
	texts := make([]string, 200)
	for i := range texts {
		texts[i] = fmt.Sprintf("document %d on vacation policy", i)
	}
	vs, err := e.Embed(ctx, texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	if f.Requests.Load() != 3 { // 96 + 96 + 8
		t.Fatalf("%d requests for 200 texts, want 3 batches", f.Requests.Load())
	}
	if n := norm(vs[0]); n < 0.999 || n > 1.001 {
		t.Fatalf("vector not normalized: |v|² = %v", n)
	}
	if _, err := e.Embed(ctx, []string{"what is the vacation policy"}, memory.PurposeQuery); err != nil {
		t.Fatal(err)
	}
	if got := f.inputTypes[len(f.inputTypes)-1]; got != "search_query" || f.inputTypes[0] != "search_document" {
		t.Fatalf("input types %v", f.inputTypes)
	}
	if _, err := bedrock.NewEmbedder(nil, bedrock.EmbedderOptions{Model: bedrock.TitanEmbedV2, Dimensions: 300}); err == nil {
		t.Fatal("Titan with 300 dimensions accepted")
	}
	if _, err := bedrock.NewEmbedder(nil, bedrock.EmbedderOptions{Model: "openai.ada"}); err == nil {
		t.Fatal("an unknown model accepted")
	}
}

func TestThrottlingIsRetried(t *testing.T) {
	for _, model := range []string{bedrock.TitanEmbedV2, bedrock.CohereEmbedEnV3} {
		t.Run(model, func(t *testing.T) {
			f, o := start(t)
			f.Throttle.Store(3)
			e := embedder(t, o, bedrock.EmbedderOptions{Model: model, CacheSize: -1})
			vs, err := e.Embed(ctx, []string{"retry me"}, memory.PurposeDocument)
			if err != nil || len(vs) != 1 {
				t.Fatalf("after 3 throttles: %v", err)
			}
			if f.Requests.Load() != 4 {
				t.Fatalf("%d requests, want 3 throttled + 1", f.Requests.Load())
			}
			// Throttled beyond the attempts: a clear error naming it.
			f.Throttle.Store(100)
			_, err = e.Embed(ctx, []string{"give up"}, memory.PurposeDocument)
			if err == nil || !strings.Contains(err.Error(), "ThrottlingException") {
				t.Fatalf("persistent throttling: %v", err)
			}
		})
	}
}

func TestMalformedResponseStoresNothing(t *testing.T) {
	for _, model := range []string{bedrock.TitanEmbedV2, bedrock.CohereEmbedEnV3} {
		t.Run(model, func(t *testing.T) {
			f, o := start(t)
			f.malformed.Store(true)
			e := embedder(t, o, bedrock.EmbedderOptions{Model: model, Dimensions: 1024})
			_, err := e.Embed(ctx, []string{"a", "b"}, memory.PurposeDocument)
			if err == nil || !(strings.Contains(err.Error(), "malformed") || strings.Contains(err.Error(), "returned 1 embeddings for 2")) {
				t.Fatalf("malformed response: %v", err)
			}
			// Through the service: the create fails as unavailable and nothing is stored.
			dir := t.TempDir()
			store, err := sqlite.Open(filepath.Join(dir, "m.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer store.Close()
			ix, _, err := bolt.Open(filepath.Join(dir, "ix"), e.Model(), e.Dimensions())
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			svc := service.NewService(store, ix, e)
			_, err = svc.Create(ctx, memory.Caller{OrgID: "acme"}, []service.NewMemory{{Content: memory.Content{Text: "x"}}, {Content: memory.Content{Text: "y"}}})
			if memory.ErrorCode(err) != memory.EUNAVAILABLE {
				t.Fatalf("service create: %v", err)
			}
			if n, _ := store.Total(ctx); n != 0 {
				t.Fatalf("%d memories stored after a malformed embedding response", n)
			}
			// And it works once the model answers properly.
			f.malformed.Store(false)
			if _, err := svc.Create(ctx, memory.Caller{OrgID: "acme"}, []service.NewMemory{{Content: memory.Content{Text: "x"}}}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

var factsTool = bedrock.Tool{Name: "record_facts", Description: "Record facts found in the conversation.",
	Schema: map[string]any{"type": "object", "required": []string{"facts"}, "properties": map[string]any{
		"facts": map[string]any{"type": "array", "items": map[string]any{"type": "object"}}}}}

func converser(t *testing.T, o bedrock.ClientOptions) *bedrock.Converser {
	c, err := bedrock.NewClient(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	cv, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: "anthropic.claude-3-5-haiku-20241022-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	return cv
}

func TestConverseToolUse(t *testing.T) {
	f, o := start(t)
	cv := converser(t, o)
	f.Throttle.Store(2)
	out, u, err := cv.Call(ctx, "Extract durable facts.", "user: I always drink tea, never coffee.", factsTool)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Facts []struct {
			Text       string  `json:"text"`
			Kind       string  `json:"kind"`
			Confidence float64 `json:"confidence"`
		} `json:"facts"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Facts) != 1 || got.Facts[0].Kind != "preference" {
		t.Fatalf("tool input %s: %v", out, err)
	}
	if u.InputTokens != testenv.ConverseInputTokens || u.OutputTokens != testenv.ConverseOutputTokens || f.Requests.Load() != 3 {
		t.Fatalf("usage %+v after %d requests", u, f.Requests.Load())
	}
	cv.Call(ctx, "Extract durable facts.", "user: hello", factsTool)
	if total := cv.Usage(); total.Calls != 2 || total.InputTokens != 2*testenv.ConverseInputTokens {
		t.Fatalf("total usage %+v", total)
	}
	f.noToolUse.Store(true)
	if _, _, err := cv.Call(ctx, "Extract durable facts.", "user: hi", factsTool); !errors.Is(err, bedrock.ErrNoToolUse) {
		t.Fatalf("answer without the tool: %v", err)
	}
}
