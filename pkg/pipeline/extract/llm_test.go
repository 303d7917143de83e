package extract_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/llm/bedrock"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// fakeModel plays the model behind the one local Bedrock stand-in
// (testenv.StartBedrock, which checks the SigV4 signature, the route and
// the JSON body): it checks the forced record_facts tool with its schema
// and answers, in the documented response format, with the facts a model
// would find in the scripted conversation.
func fakeModel(t *testing.T) string {
	b := testenv.StartBedrock(t, &testenv.Bedrock{Converse: func(w http.ResponseWriter, _ string, req testenv.ConverseRequest) {
		var schema struct {
			Type       string          `json:"type"`
			Properties json.RawMessage `json:"properties"`
		}
		tool, raw := req.ForcedTool()
		json.Unmarshal(raw, &schema)
		if tool != "record_facts" || schema.Type != "object" {
			testenv.BedrockFail(w, 400, "ValidationException", "tool not forced")
			return
		}
		// The tool asks for each fact's subject, slot and importance.
		for _, field := range []string{`"subject"`, `"slot"`, `"value"`, `"importance"`, `"durability"`, `"negated"`, `"change"`} {
			if !strings.Contains(string(schema.Properties), field) {
				testenv.BedrockFail(w, 400, "ValidationException", "schema without "+field)
				return
			}
		}
		if len(req.Messages) == 0 || len(req.Messages[0].Content) == 0 {
			testenv.BedrockFail(w, 400, "ValidationException", "no message")
			return
		}
		convo := req.Messages[0].Content[0].Text
		id := regexp.MustCompile(`\[([0-9a-f]+)\] Ana:`).FindStringSubmatch(convo)
		var facts []map[string]any
		switch {
		case strings.Contains(convo, "green tea"):
			// "entity" is the first version's name of the subject.
			facts = append(facts, map[string]any{"text": "Ana loves green tea in the morning", "kind": "preference", "confidence": 0.9, "entity": "Ana",
				"slot": "preference:green tea", "value": "green tea", "importance": 0.6, "durability": "standard", "sources": []string{id[1]}})
		case strings.Contains(convo, "coffee now"):
			facts = append(facts, map[string]any{"text": "Ana prefers coffee now", "kind": "preference", "confidence": 0.9, "subject": "Ana",
				"slot": "preference:coffee", "value": "coffee", "importance": 0.6, "durability": "standard", "change": true,
				"quote": "Actually I prefer coffee now, tea keeps me awake", "sources": []string{id[1]}},
				map[string]any{"text": "An ungrounded claim", "kind": "fact", "confidence": 0.9, "subject": "Ana", "slot": "", "importance": 0.5, "durability": "standard", "sources": []string{"not-a-turn"}})
		}
		testenv.ConverseToolUse(w, "record_facts", map[string]any{"facts": facts})
	}})
	return b.URL
}

func TestLLMExtractionSupersedes(t *testing.T) {
	c, err := bedrock.NewClient(ctx, bedrock.ClientOptions{Endpoint: fakeModel(t), AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	llm, err := bedrock.NewConverser(c, bedrock.ConverserOptions{Model: "anthropic.claude-3-5-haiku-20241022-v1:0"})
	if err != nil {
		t.Fatal(err)
	}
	p, svc := setup(t, extract.LLM{LLM: llm})
	checkSupersede(t, p, svc)
	if u := llm.Usage(); u.Calls < 2 || u.InputTokens != testenv.ConverseInputTokens*u.Calls {
		t.Fatalf("token accounting %+v", u)
	}
}

// TestLLMFactsAreChecked: what the model gets wrong is corrected from the
// slot table or dropped, never stored as given.
func TestLLMFactsAreChecked(t *testing.T) {
	long := strings.Repeat("x", 200)
	model := scripted{"penicillin": {
		{"text": "Ana is allergic to penicillin", "kind": "nonsense", "confidence": 7, "entity": "Ana", "slot": "Allergy:Penicillin", "value": "penicillin", "importance": -1, "durability": "forever"},
		{"text": "Ana likes odd things", "kind": "preference", "confidence": 0.8, "subject": "Ana", "slot": "vibe:odd", "importance": 0.6, "durability": "standard"},
		{"text": "A fact about nobody in particular", "kind": "fact", "confidence": 0.8, "subject": long, "slot": "", "importance": 0.5, "durability": "standard"},
		{"text": "  ", "kind": "fact", "confidence": 0.8, "subject": "Ana", "slot": "", "importance": 0.5, "durability": "standard"},
	}}
	facts, err := extract.LLM{LLM: model}.Extract(ctx, []extract.Turn{{ID: "t1", Speaker: "Ana", Text: "I'm allergic to penicillin."}})
	if err != nil || len(facts) != 2 {
		t.Fatalf("%+v %v", facts, err)
	}
	a, b := facts[0], facts[1]
	if a.Subject != "Ana" || a.Slot != "allergy:penicillin" || a.Kind != memory.KindFact || a.Importance != 0.9 || a.Durability != memory.DurabilityCore || a.Confidence != 0.7 {
		t.Errorf("allergy corrected from the slot table: %+v", a)
	}
	if b.Slot != "" || b.Kind != memory.KindPreference || b.Importance != 0.6 {
		t.Errorf("a slot outside the vocabulary is dropped: %+v", b)
	}
}
