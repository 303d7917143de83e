package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// LLM extracts facts with a language model (any memory.LLM: Bedrock
// Converse, an OpenAI-compatible server), forced to answer with the
// record_facts tool. The model gives each fact its subject, slot, value,
// polarity, importance and durability; what it leaves out or gets out of
// range falls back to the offline extractor's table (slots.go).
type LLM struct {
	LLM memory.LLM
	// Instructions, when set, are added to the system prompt (an org's
	// own extraction instructions).
	Instructions string
	// Language, when set, is the BCP 47 tag of the language the model
	// writes each fact's text and value in, whatever the conversation's.
	Language string
}

// Steer implements Steerable: the extractor with the org's instructions
// added to its own and the org's language.
func (l LLM) Steer(s memory.ExtractionSettings) Extractor {
	if s.Instructions != "" {
		if l.Instructions != "" {
			l.Instructions += "\n"
		}
		l.Instructions += s.Instructions
	}
	if s.Language != "" {
		l.Language = s.Language
	}
	return l
}

// Bedrock is the former name of LLM.
//
// Deprecated: use LLM, which takes any memory.LLM.
type Bedrock = LLM

// Name implements Extractor.
func (LLM) Name() string { return "llm-facts-v2" }

const systemPrompt = `You extract durable facts from a conversation for an AI agent's long-term memory.
Skip small talk: greetings, thanks, acknowledgements, questions, reactions, fillers.
Record facts worth remembering beyond this conversation: identity, relationships, health, allergies, diet,
work, home, preferences, interests, activities, plans with their dates, decisions, explicit requests.
For each fact:
- text: one standalone sentence that names its subject (never "I", "he", "she" or "we").
- subject: who or what it is about: the person's name ("Ana", "Ana's sister"); "the company" only for a
  fact about the organization itself ("we as a company ...").
- slot: the attribute it sets, one of name, age, birthday, origin, home, employer, occupation, education,
  relationship:<relation> (relationship:manager, relationship:wife), allergy:<substance>, health:<condition>,
  diet:<food>, favorite:<category>, preference:<thing>, interest:<topic>, activity:<activity>, pet:<animal>,
  plan:<what>, request:<what>, state:<state>; empty if none fits.
- value: the value it gives the slot ("14 July", "Li", "Berlin").
- negated=true when the fact denies or rejects (does not eat, hates); change=true when the speaker says
  something changed ("now", "anymore", "switched to", "moved to").
- importance 0..1: health, allergies, identity, relationships 0.9; work, home 0.8; preferences 0.6-0.7;
  plans 0.6; feelings 0.4; transient states (tired, busy) 0.3.
- durability: core (identity, health, relationships), standard, or ephemeral (transient states, undated plans).
- sources: the ids of the turns it comes from; quote: the words of the turn it rests on.`

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
				"required": []string{"text", "kind", "confidence", "subject", "slot", "importance", "durability", "sources"},
				"properties": map[string]any{
					"text":       map[string]any{"type": "string"},
					"kind":       map[string]any{"type": "string", "enum": []string{"fact", "preference", "interaction", "summary", "user_request", "entity", "interest"}},
					"confidence": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
					"importance": map[string]any{"type": "number", "minimum": 0, "maximum": 1},
					"durability": map[string]any{"type": "string", "enum": []string{"core", "standard", "ephemeral"}},
					"subject":    map[string]any{"type": "string", "description": "who or what the fact is about"},
					"slot":       map[string]any{"type": "string", "description": "the attribute set, family or family:qualifier"},
					"value":      map[string]any{"type": "string"},
					"change":     map[string]any{"type": "boolean"},
					"negated":    map[string]any{"type": "boolean"},
					"quote":      map[string]any{"type": "string"},
					"sources":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
				},
			},
		}},
	},
}

// llmFact is a fact as the model writes it; "entity" is the subject's name
// in the first version of the tool.
type llmFact struct {
	Fact
	Entity string `json:"entity"`
}

// Extract implements Extractor. Facts with unknown kinds, out-of-range
// scores or sources that are not among the turns are corrected or
// dropped, never trusted blindly.
func (l LLM) Extract(ctx context.Context, turns []Turn) ([]Fact, error) {
	var sb strings.Builder
	ids := map[string]bool{}
	for _, t := range turns {
		fmt.Fprintf(&sb, "[%s] %s: %s\n", t.ID, t.Speaker, t.Text)
		ids[t.ID] = true
	}
	system := systemPrompt
	if s := strings.TrimSpace(l.Instructions); s != "" {
		system += "\nThe organization adds these instructions:\n" + s
	}
	if l.Language != "" {
		system += fmt.Sprintf("\nWrite each fact's text and value in the language with BCP 47 tag %q, translating when the "+
			"conversation is in another language; keep names as spoken and the slot names as listed above.", l.Language)
	}
	raw, _, err := l.LLM.Call(ctx, system, sb.String(), factsTool)
	if err != nil {
		return nil, err
	}
	var out struct {
		Facts []llmFact `json:"facts"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, memory.Errorf(memory.EINTERNAL, "extract: the model's facts are malformed: %v", err)
	}
	var facts []Fact
	for _, lf := range out.Facts {
		f := lf.Fact
		f.Text = strings.TrimSpace(f.Text)
		if f.Text == "" || len(f.Text) > 1000 {
			continue
		}
		if f.Subject = strings.TrimSpace(f.Subject); f.Subject == "" {
			f.Subject = strings.TrimSpace(lf.Entity)
		}
		if memory.ValidID("subject", f.Subject) != nil {
			continue // not a name: longer than an id may be, or with control characters
		}
		f.Value, f.Quote = clip(strings.TrimSpace(f.Value), 200), clip(f.Quote, 1000)
		f.Slot = clip(normalizeSlot(f.Slot), 100)
		fam, known := families[memory.SlotFamily(f.Slot)]
		if !known {
			f.Slot = "" // an attribute outside the vocabulary cannot be compared
		}
		if memory.ValidKind(f.Kind) != nil {
			f.Kind = memory.KindFact
			if known {
				f.Kind = fam.kind
			}
		}
		if memory.ValidDurability(f.Durability) != nil {
			f.Durability = memory.DurabilityStandard
			if known {
				f.Durability = fam.durability
			}
		}
		if f.Importance <= 0 || f.Importance > 1 {
			f.Importance = 0.5
			if known {
				f.Importance = fam.importance
			}
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
