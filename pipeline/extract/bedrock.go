package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/memory"
)

// Bedrock extracts facts with an LLM through the Converse API, forced to
// answer with the record_facts tool.
type Bedrock struct {
	LLM memory.LLM
}

// Name implements Extractor.
func (Bedrock) Name() string { return "bedrock-converse-v1" }

const systemPrompt = `You extract durable facts from a conversation for an AI agent's long-term memory.
Record only facts worth remembering beyond this conversation: preferences, identity, relationships,
plans, decisions, dates, interests, explicit requests. Skip small talk, questions and speculation.
Write each fact as a standalone sentence that names its subject (never "I" or "he").
Set change=true when the speaker says something changed ("now", "anymore", "switched to"),
negated=true when the fact denies something. Cite the ids of the turns each fact comes from.`

var factsTool = memory.Tool{
	Name:        "record_facts",
	Description: "Record the durable facts found in the conversation.",
	Schema: map[string]any{
		"type":     "object",
		"required": []string{"facts"},
		"properties": map[string]any{"facts": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type":     "object",
				"required": []string{"text", "kind", "confidence", "entity", "sources"},
				"properties": map[string]any{
					"text":       map[string]any{"type": "string"},
					"kind":       map[string]any{"type": "string", "enum": []string{"fact", "preference", "interaction", "summary", "user_request", "entity", "interest"}},
					"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
					"durability": map[string]any{"type": "string", "enum": []string{"core", "standard", "ephemeral"}},
					"entity":     map[string]any{"type": "string", "description": "who or what the fact is about"},
					"change":     map[string]any{"type": "boolean"},
					"negated":    map[string]any{"type": "boolean"},
					"sources":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				},
			},
		}},
	},
}

// Extract implements Extractor. Facts with unknown kinds, out-of-range
// confidence or sources that are not among the turns are corrected or
// dropped, never trusted blindly.
func (b Bedrock) Extract(ctx context.Context, turns []Turn) ([]Fact, error) {
	var sb strings.Builder
	ids := map[string]bool{}
	for _, t := range turns {
		fmt.Fprintf(&sb, "[%s] %s: %s\n", t.ID, t.Speaker, t.Text)
		ids[t.ID] = true
	}
	raw, _, err := b.LLM.Call(ctx, systemPrompt, sb.String(), factsTool)
	if err != nil {
		return nil, err
	}
	var out struct {
		Facts []Fact `json:"facts"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("extract: the model's facts are malformed: %w", err)
	}
	var facts []Fact
	for _, f := range out.Facts {
		f.Text = strings.TrimSpace(f.Text)
		if f.Text == "" || len(f.Text) > 1000 {
			continue
		}
		if memory.ValidKind(f.Kind) != nil {
			f.Kind = memory.KindFact
		}
		if memory.ValidDurability(f.Durability) != nil {
			f.Durability = memory.DurabilityStandard
		}
		if f.Confidence <= 0 || f.Confidence > 1 {
			f.Confidence = 0.7
		}
		var srcs []string
		for _, s := range f.Sources {
			if ids[s] {
				srcs = append(srcs, s)
			}
		}
		if len(srcs) == 0 {
			continue // a fact that cites no turn of this conversation is not grounded
		}
		f.Sources = srcs
		facts = append(facts, f)
	}
	return facts, nil
}
