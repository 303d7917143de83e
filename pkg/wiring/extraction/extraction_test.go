package extraction_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/telemetry/prom"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/aws/aws-lambda-go/events"
)

// TestNew: without relations the pipeline is refused at start, naming
// itself and the capability; without a model it extracts with the local
// patterns, and with one through it.
func TestNew(t *testing.T) {
	_, err := extraction.New(nil, wiring.Capabilities{Store: "bare"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "fact extraction needs a store that keeps relations (memory.RelationStore)") {
		t.Fatalf("no relations: %v", err)
	}

	ctx := context.Background()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The Bedrock adapter, built and never called (a closed loopback port).
	model, err := llm.New(ctx, config.LLM{Provider: config.LLMBedrock, Model: "amazon.nova-lite-v1:0", Mode: config.LLMModeTools},
		config.AWS{Region: "us-east-1", BedrockEndpoint: "http://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		model memory.LLM
		want  string
	}{
		{"no model", nil, extract.Local{}.Name()},
		{"a model", model, extract.LLM{}.Name()},
	}
	for _, tc := range tests {
		p, err := extraction.New(b.Service, b.Caps, tc.model, nil)
		if w, ok := p.Service.(*service.Worker); err != nil || p.Extractor.Name() != tc.want || !ok || w.Service != b.Service {
			t.Errorf("%s: %+v %v, want extractor %s", tc.name, p, err, tc.want)
		}
		// The store keeps records: jobs follow their org's settings.
		if st := extraction.SettingsOf(p); st == nil || st.Records != b.Caps.Records {
			t.Errorf("%s: settings %+v, want a store over the backend's records", tc.name, p.Settings)
		}
	}
	// Without records, no settings: every org extracts by the defaults.
	p, err := extraction.New(b.Service, wiring.Capabilities{Store: "relations only", Relations: b.Caps.Relations}, nil, nil)
	if err != nil || p.Settings != nil || extraction.SettingsOf(p) != nil {
		t.Fatalf("without records: %+v %v", p, err)
	}
}

// TestSettingsOnDynamoDB: as in AWS, the API writes an org's settings to
// DynamoDB through its own settings store and the extract Lambda's
// pipeline (built by New over the DynamoDB store's capabilities) follows
// them in its SQS handler: org a's drop rule holds for org a only.
func TestSettingsOnDynamoDB(t *testing.T) {
	ep := testenv.Get(t, "DYNAMODB_ENDPOINT")
	t.Setenv("AWS_ACCESS_KEY_ID", "local")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "local")
	var suffix [4]byte
	rand.Read(suffix[:])
	env := map[string]string{"BACKEND": "aws", "DYNAMODB_ENDPOINT": ep, "DYNAMODB_CREATE_TABLE": "true",
		"DYNAMODB_TABLE": "settings-" + hex.EncodeToString(suffix[:]), "DATA_DIR": t.TempDir()}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := server.OpenWith(ctx, cfg, hashing.New(128), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := extraction.New(b.Service, b.Caps, nil, quiet)
	if err != nil {
		t.Fatal(err)
	}
	api := service.NewSettingsStore(b.Caps.Records) // the API Lambda's
	if _, v, err := api.Write(ctx, "org-a", memory.ExtractionSettings{DropCategories: []string{"allergy"}}, 0); err != nil || v != 1 {
		t.Fatalf("write: %d %v", v, err)
	}
	var ev events.SQSEvent
	for _, org := range []string{"org-a", "org-b"} {
		res, err := b.Service.Create(ctx, memory.Caller{OrgID: org}, []service.NewMemory{
			{Type: memory.TypeMessage, RoomID: "chat", EntityID: "Ana", Content: memory.Content{Text: "I'm allergic to penicillin."}},
			{Type: memory.TypeMessage, RoomID: "chat", EntityID: "Ana", Content: memory.Content{Text: "I live in Lisbon."}}})
		if err != nil {
			t.Fatal(err)
		}
		js, _ := json.Marshal(extract.Job{OrgID: org, MessageIDs: []string{res[0].ID, res[1].ID}})
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: org, Body: string(js)})
	}
	if out, err := p.HandleSQS(ctx, ev); err != nil || len(out.BatchItemFailures) != 0 {
		t.Fatalf("handle: %+v %v", out, err)
	}
	for _, tc := range []struct {
		org  string
		want []string
	}{
		{"org-a", []string{"Ana lives in Lisbon"}},
		{"org-b", []string{"Ana is allergic to penicillin", "Ana lives in Lisbon"}},
	} {
		page, err := b.Service.List(ctx, memory.Caller{OrgID: tc.org}, memory.Filter{Types: []memory.Type{memory.TypeFact}}, 100, "")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range page.Memories {
			got = append(got, m.Content.Text)
		}
		sort.Strings(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: facts %q, want %q", tc.org, got, tc.want)
		}
	}
}

// promptModel records the system prompt of each call and finds nothing.
type promptModel struct{ prompts []string }

func (m *promptModel) Call(_ context.Context, system, _ string, _ memory.Tool) (json.RawMessage, memory.Usage, error) {
	m.prompts = append(m.prompts, system)
	return json.RawMessage(`{"facts":[]}`), memory.Usage{Calls: 1}, nil
}

// TestObservedKeepsSteering: memoryd's observed extractor passes an org's
// instructions and language on to the LLM extractor it wraps.
func TestObservedKeepsSteering(t *testing.T) {
	ctx := context.Background()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	model := &promptModel{}
	p, err := extraction.New(b.Service, b.Caps, model, quiet)
	if err != nil {
		t.Fatal(err)
	}
	p.Extractor = extraction.Observed(p.Extractor, prom.New())
	if _, _, err := extraction.SettingsOf(p).Write(ctx, "acme", memory.ExtractionSettings{Instructions: "Never record salaries.", Language: "fr"}, 0); err != nil {
		t.Fatal(err)
	}
	c := memory.Caller{OrgID: "acme"}
	res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeMessage, RoomID: "r", EntityID: "Ana", Content: memory.Content{Text: "I moved to Lyon last spring."}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Process(ctx, c, []extract.Turn{{ID: res[0].ID, Speaker: "Ana", Text: "I moved to Lyon last spring."}}); err != nil {
		t.Fatal(err)
	}
	if len(model.prompts) != 1 || !strings.Contains(model.prompts[0], "Never record salaries.") || !strings.Contains(model.prompts[0], `BCP 47 tag "fr"`) {
		t.Fatalf("prompts %q lack the org's instructions and language", model.prompts)
	}
}
