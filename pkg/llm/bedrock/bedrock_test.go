package bedrock_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/index/bolt"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

var ctx = context.Background()

// fakeBedrock is a local stand-in for the Bedrock runtime endpoint. It
// checks what the SDK sends as Bedrock would (path, SigV4, content types,
// body shape per model family) and answers in the documented formats.
type fakeBedrock struct {
	t          *testing.T
	throttle   atomic.Int32 // answer this many requests with ThrottlingException first
	malformed  atomic.Bool  // answer 200 with a body that is not the documented shape
	noToolUse  atomic.Bool  // Converse answers with text instead of calling the tool
	requests   atomic.Int32
	inFlight   atomic.Int32
	maxFlight  atomic.Int32
	delay      time.Duration
	mu         sync.Mutex
	inputTypes []string
}

func (f *fakeBedrock) fail(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", kind)
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"message":%q}`, msg)
}

func (f *fakeBedrock) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	n := f.inFlight.Add(1)
	defer f.inFlight.Add(-1)
	for {
		m := f.maxFlight.Load()
		if n <= m || f.maxFlight.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(f.delay)
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=local/") || !strings.Contains(auth, "/bedrock/aws4_request") ||
		!strings.Contains(auth, "SignedHeaders=") || !strings.Contains(auth, "Signature=") || r.Header.Get("X-Amz-Date") == "" {
		f.fail(w, 403, "AccessDeniedException", "missing or malformed SigV4 signature: "+auth)
		return
	}
	if r.Method != http.MethodPost {
		f.fail(w, 405, "ValidationException", "method "+r.Method)
		return
	}
	if f.throttle.Load() > 0 {
		f.throttle.Add(-1)
		f.fail(w, 429, "ThrottlingException", "Too many requests, please wait before trying again.")
		return
	}
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(parts) != 3 || parts[0] != "model" {
		f.fail(w, 404, "ResourceNotFoundException", "no route "+r.URL.Path)
		return
	}
	body, _ := io.ReadAll(r.Body)
	model, op := parts[1], parts[2]
	switch {
	case op == "invoke" && model == bedrock.TitanEmbedV2:
		f.titan(w, r, body)
	case op == "invoke" && strings.HasPrefix(model, "cohere.embed-"):
		f.cohere(w, r, body)
	case op == "converse":
		f.converse(w, body)
	default:
		f.fail(w, 400, "ValidationException", "unsupported "+op+" on "+model)
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
		f.fail(w, 400, "ValidationException", "content type and accept must be application/json")
		return
	}
	var req struct {
		InputText  string `json:"inputText"`
		Dimensions int    `json:"dimensions"`
		Normalize  bool   `json:"normalize"`
	}
	if _, err := strictKeys(body, "inputText", "dimensions", "normalize"); err != nil {
		f.fail(w, 400, "ValidationException", "titan body: "+err.Error())
		return
	}
	json.Unmarshal(body, &req)
	if req.InputText == "" || (req.Dimensions != 256 && req.Dimensions != 512 && req.Dimensions != 1024) || !req.Normalize {
		f.fail(w, 400, "ValidationException", fmt.Sprintf("titan request %+v", req))
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
		f.fail(w, 400, "ValidationException", "cohere body: "+err.Error())
		return
	}
	json.Unmarshal(body, &req)
	if len(req.Texts) == 0 || len(req.Texts) > 96 || (req.InputType != "search_document" && req.InputType != "search_query") || req.Truncate != "END" {
		f.fail(w, 400, "ValidationException", fmt.Sprintf("cohere request: %d texts, input_type %q, truncate %q", len(req.Texts), req.InputType, req.Truncate))
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

func (f *fakeBedrock) converse(w http.ResponseWriter, body []byte) {
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
		System []struct {
			Text string `json:"text"`
		} `json:"system"`
		InferenceConfig struct {
			MaxTokens   int      `json:"maxTokens"`
			Temperature *float64 `json:"temperature"`
		} `json:"inferenceConfig"`
		ToolConfig struct {
			Tools []struct {
				ToolSpec struct {
					Name        string `json:"name"`
					Description string `json:"description"`
					InputSchema struct {
						JSON map[string]any `json:"json"`
					} `json:"inputSchema"`
				} `json:"toolSpec"`
			} `json:"tools"`
			ToolChoice struct {
				Tool struct {
					Name string `json:"name"`
				} `json:"tool"`
			} `json:"toolChoice"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.fail(w, 400, "ValidationException", err.Error())
		return
	}
	tc := req.ToolConfig
	if len(req.Messages) != 1 || req.Messages[0].Role != "user" || len(req.Messages[0].Content) != 1 || req.Messages[0].Content[0].Text == "" ||
		len(req.System) != 1 || req.System[0].Text == "" || req.InferenceConfig.MaxTokens == 0 ||
		req.InferenceConfig.Temperature == nil || *req.InferenceConfig.Temperature != 0 ||
		len(tc.Tools) != 1 || tc.Tools[0].ToolSpec.InputSchema.JSON["type"] != "object" || tc.ToolChoice.Tool.Name != tc.Tools[0].ToolSpec.Name {
		f.fail(w, 400, "ValidationException", "converse request shape: "+string(body))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	content := []any{map[string]any{"toolUse": map[string]any{"toolUseId": "tooluse_1", "name": tc.ToolChoice.Tool.Name,
		"input": map[string]any{"facts": []any{map[string]any{"text": "User prefers tea", "kind": "preference", "confidence": 0.9}}}}}}
	stop := "tool_use"
	if f.noToolUse.Load() {
		content, stop = []any{map[string]any{"text": "I think the user likes tea."}}, "end_turn"
	}
	json.NewEncoder(w).Encode(map[string]any{
		"output":     map[string]any{"message": map[string]any{"role": "assistant", "content": content}},
		"stopReason": stop,
		"usage":      map[string]any{"inputTokens": 120, "outputTokens": 40, "totalTokens": 160},
		"metrics":    map[string]any{"latencyMs": 310},
	})
}

func start(t *testing.T) (*fakeBedrock, bedrock.ClientOptions) {
	f := &fakeBedrock{t: t}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, bedrock.ClientOptions{Endpoint: srv.URL, AccessKey: "local", SecretKey: "local", MaxBackoff: 50 * time.Millisecond}
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
	f.delay = 20 * time.Millisecond
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
	if f.requests.Load() != 12 || f.maxFlight.Load() > 3 {
		t.Fatalf("%d requests, %d at once; want 12 with at most 3 at once", f.requests.Load(), f.maxFlight.Load())
	}
	if e.InputTokens() == 0 {
		t.Fatal("input tokens not counted")
	}
	// Cached: no new request.
	if _, err := e.Embed(ctx, texts[:5], memory.PurposeDocument); err != nil || f.requests.Load() != 12 {
		t.Fatalf("cached texts made %d requests (%v)", f.requests.Load()-12, err)
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
	if f.requests.Load() != 3 { // 96 + 96 + 8
		t.Fatalf("%d requests for 200 texts, want 3 batches", f.requests.Load())
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
			f.throttle.Store(3)
			e := embedder(t, o, bedrock.EmbedderOptions{Model: model, CacheSize: -1})
			vs, err := e.Embed(ctx, []string{"retry me"}, memory.PurposeDocument)
			if err != nil || len(vs) != 1 {
				t.Fatalf("after 3 throttles: %v", err)
			}
			if f.requests.Load() != 4 {
				t.Fatalf("%d requests, want 3 throttled + 1", f.requests.Load())
			}
			// Throttled beyond the attempts: a clear error naming it.
			f.throttle.Store(100)
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
	f.throttle.Store(2)
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
	if u.InputTokens != 120 || u.OutputTokens != 40 || f.requests.Load() != 3 {
		t.Fatalf("usage %+v after %d requests", u, f.requests.Load())
	}
	cv.Call(ctx, "Extract durable facts.", "user: hello", factsTool)
	if total := cv.Usage(); total.Calls != 2 || total.InputTokens != 240 {
		t.Fatalf("total usage %+v", total)
	}
	f.noToolUse.Store(true)
	if _, _, err := cv.Call(ctx, "Extract durable facts.", "user: hi", factsTool); !errors.Is(err, bedrock.ErrNoToolUse) {
		t.Fatalf("answer without the tool: %v", err)
	}
}
