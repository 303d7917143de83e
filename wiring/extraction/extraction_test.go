package extraction_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/embed/hashing"
	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/extract"
	"github.com/agentmem/agentmem/wiring"
	"github.com/agentmem/agentmem/wiring/extraction"
	"github.com/agentmem/agentmem/wiring/llm"
	"github.com/agentmem/agentmem/wiring/local"
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
		if err != nil || p.Extractor.Name() != tc.want || p.Service != b.Service {
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
