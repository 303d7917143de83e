package aws_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/knowledge"
	kllm "github.com/agentmem/agentmem/pkg/knowledge/extractor/llm"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/aws/aws-lambda-go/events"
)

// TestLLMKnowledgeInTheLambdas opens the Lambdas' root (aws.Open) on
// DynamoDB Local and OpenSearch, with and without an LLM configured
// (Bedrock, the fake runtime). With it, a write extracts offline and
// leaves the memory pending, and the extract function's handler
// (ExtractPendingAfter, around the batch's own handling) replaces the
// offline knowledge with the model's for the orgs of its jobs, not for
// another org's, and gives a memory deleted since no knowledge back.
// Without it, a write's knowledge is done offline and the model is never
// asked.
func TestLLMKnowledgeInTheLambdas(t *testing.T) {
	ddb := testenv.Get(t, "DYNAMODB_ENDPOINT")
	osURL := testenv.Get(t, "OPENSEARCH_URL")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	var calls atomic.Int32
	f := testenv.StartBedrock(t, &testenv.Bedrock{Region: "us-east-1", Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
		calls.Add(1)
		tool, _ := req.ForcedTool()
		if user, _ := req.OneUserMessage(); tool != kllm.ToolName || strings.Contains(user, "[2] ") {
			testenv.BedrockFail(w, 400, "ValidationException", "want one message to record_knowledge")
			return
		}
		testenv.ConverseToolUse(w, tool, map[string]any{"messages": []any{map[string]any{"id": 1,
			"entities": []any{map[string]any{"name": "The Innovator's Dilemma", "types": []any{"book"}}},
			"topics":   []any{"business books"}}}})
	}})
	tests := []struct {
		name      string
		llm       map[string]string
		extractor string // of the knowledge after the batch
	}{
		{"with an LLM", map[string]string{"LLM_PROVIDER": "bedrock", "LLM_MODEL": "anthropic.claude-3-5-haiku-20241022-v1:0"}, "llm-knowpro-v1"},
		{"without", nil, "offline-v1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			calls.Store(0)
			var suffix [4]byte
			rand.Read(suffix[:])
			name := "llmknow-" + hex.EncodeToString(suffix[:])
			env := map[string]string{"BACKEND": "aws", "INDEX": "opensearch", "EMBEDDER": "hash", "AWS_REGION": "us-east-1",
				"DYNAMODB_ENDPOINT": ddb, "DYNAMODB_CREATE_TABLE": "true", "DYNAMODB_TABLE": name,
				"OPENSEARCH_URL": osURL, "OPENSEARCH_ALIAS": name, "BEDROCK_ENDPOINT": f.URL}
			for k, v := range tc.llm {
				env[k] = v
			}
			cfg, err := config.Load(func(k string) string { return env[k] })
			if err != nil {
				t.Fatal(err)
			}
			b, err := aws.Open(ctx, cfg, wiringLog(t))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if (b.Model != nil) != (tc.llm != nil) {
				t.Fatalf("model %v, want one only when LLM_PROVIDER names one", b.Model)
			}
			create := func(org, text string) string {
				t.Helper()
				res, err := b.Service.Create(ctx, memory.Caller{OrgID: org}, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Maya",
					RoomID: "podcast", Content: memory.Content{Text: text}}})
				if err != nil {
					t.Fatal(err)
				}
				return res[0].ID
			}
			status := func(org, id string) memory.KnowledgeStatus {
				t.Helper()
				st, err := b.Store.KnowledgeStatus(ctx, org, []string{id})
				if err != nil {
					t.Fatal(err)
				}
				return st[id]
			}
			read := create("acme", "I finally read The Innovator's Dilemma on the flight.")
			gone := create("acme", "We hiked to the lighthouse at dawn.")
			other := create("globex", "I read Dune on the train.")
			wantState := memory.KnowledgeDone
			if tc.llm != nil {
				wantState = memory.KnowledgePending
			}
			for _, m := range []struct{ org, id string }{{"acme", read}, {"acme", gone}, {"globex", other}} {
				if st := status(m.org, m.id); st.State != wantState || st.Extractor != "offline-v1" || st.Refs == 0 {
					t.Fatalf("right after the write: %+v, want %s with the offline refs", st, wantState)
				}
			}
			if calls.Load() != 0 {
				t.Fatalf("the write asked the model %d times", calls.Load())
			}
			if _, err := b.Service.Delete(ctx, memory.Caller{OrgID: "acme"}, gone, service.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}

			// The extract function's batch: one job of org acme.
			body, _ := json.Marshal(memory.ExtractionJob{OrgID: "acme", MessageIDs: []string{read}})
			handled := false
			h := b.ExtractPendingAfter(func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) {
				handled = true
				return events.SQSEventResponse{}, nil
			}, wiringLog(t))
			if _, err := h(ctx, events.SQSEvent{Records: []events.SQSMessage{{MessageId: "1", Body: string(body)}, {MessageId: "2", Body: "not json"}}}); err != nil || !handled {
				t.Fatalf("the batch: handled %v, %v", handled, err)
			}
			if st := status("acme", read); st.State != memory.KnowledgeDone || st.Extractor != tc.extractor {
				t.Errorf("after the batch: %+v, want done by %s", st, tc.extractor)
			}
			if st := status("acme", gone); st.State != "" {
				t.Errorf("the deleted memory: %+v, want no status", st)
			}
			if st := status("globex", other); st.State != wantState {
				t.Errorf("another org's memory after the batch: %+v, want %s (its jobs extract it)", st, wantState)
			}
			if tc.llm == nil {
				if calls.Load() != 0 {
					t.Errorf("without an LLM the model was asked %d times", calls.Load())
				}
				return
			}
			if calls.Load() != 1 {
				t.Errorf("the model was asked %d times, want once (the one memory pending in acme)", calls.Load())
			}
			x := b.Knowledge
			got, err := x.Search(ctx, memory.Caller{OrgID: "acme"}, knowledge.SearchRequest{
				Query: json.RawMessage(`{"select": {"entity": {"name": "The Innovator's Dilemma", "types": ["book"]}}}`)})
			if err != nil || len(got.Memories) != 1 || got.Memories[0].Memory.ID != read {
				t.Errorf("the book the model typed: %+v %v, want %s", got, err, read)
			}
		})
	}
}
