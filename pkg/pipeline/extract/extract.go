// Package extract pulls durable facts out of conversation turns and merges
// them into what an org already knows.
//
// Every fact names a subject (who or what it is about) and an attribute
// slot ("diet:gluten", "birthday", "preference:jazz": see slots.go), and is
// compared with the known facts of the same subject in the scope it will be
// written to. It is then classified new, duplicate, enriches, supersedes or
// contradicts by the rules of decide.go. Supersedes and contradicts apply
// only within one subject and slot, so a true fact is never archived
// because of an unrelated one. The decision, with its rule and scores, is
// kept in the fact's metadata, and as relations with provenance back to the
// source turns.
//
// Facts from an agent-bound conversation stay in that agent's scope. Only
// a fact about the org itself is promoted to the org scope (see
// Pipeline.scope).
//
// Each org steers its own extraction (memory.ExtractionSettings, kept by
// SettingsStore): its instructions and language go to the LLM extractor's
// prompt; its keep and drop lists of kinds and categories filter every
// extractor's facts before anything is written. The offline extractor
// (Local) follows the lists only: it reads English and writes English,
// whatever language the org asks for.
package extract

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Turn is one conversation message given to an extractor.
type Turn struct {
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	// AgentID is the agent scope the message was written in ("" for the
	// org scope); facts drawn from it are written there.
	AgentID string `json:"agentId,omitempty"`
	// From is the stored message, when the turn is one: the facts drawn
	// from it are visible no wider than it (memory.Memory.Inherit).
	From *memory.Memory `json:"-"`
}

// Fact is a statement an extractor found.
type Fact struct {
	// Text states the fact on its own, naming its subject ("Ana prefers tea").
	Text string      `json:"text"`
	Kind memory.Kind `json:"kind"`
	// Confidence is how sure the extractor is that the turns say this.
	Confidence float64 `json:"confidence"`
	// Importance (0..1) and Durability are how much and how long the fact
	// matters (see the table of Local for the offline rules).
	Importance float64           `json:"importance"`
	Durability memory.Durability `json:"durability"`
	// Subject is who or what the fact is about: the speaker's name for a
	// first-person statement, "Maya" or "Maya's sister" for a third-person
	// one, "the company" for a fact about the org itself.
	Subject string `json:"subject"`
	// Slot is the attribute of the subject the fact sets ("birthday",
	// "diet:gluten", "preference:jazz", "relationship:manager"), empty when
	// none applies; Value is the value it gives the slot ("14 July").
	Slot  string `json:"slot"`
	Value string `json:"value"`
	// Change marks a fact stated as a change of an earlier one ("now",
	// "anymore", "switched to"); Negated a fact that denies or rejects
	// something ("does not eat gluten", "hates jazz").
	Change  bool `json:"change"`
	Negated bool `json:"negated"`
	// Sources are the ids of the turns it comes from.
	Sources []string `json:"sources"`
	// Quote is the passage of the turns the fact rests on, when the
	// extractor gives it; a change that names the old value there
	// ("I prefer coffee now, tea keeps me awake") supersedes the fact
	// holding that value.
	Quote string `json:"quote,omitempty"`

	// entityID is the registered entity Subject resolved to, if any
	// (Pipeline.Entities).
	entityID string
}

// entity is the fact's entityId: the registered entity its subject
// resolved to, else the subject.
func (f Fact) entity() string {
	if f.entityID != "" {
		return f.entityID
	}
	return f.Subject
}

// resolveSpeakers returns turns with each speaker that names a
// registered entity (its id, as a message's entityId usually is, or a
// name or alias) given by the entity's display name.
func resolveSpeakers(names *memory.EntityNames, turns []Turn) []Turn {
	if names.Len() == 0 {
		return turns
	}
	out := make([]Turn, len(turns))
	for i, t := range turns {
		if e := names.Resolve(t.Speaker, t.AgentID); e != nil {
			t.Speaker = e.DisplayName()
		}
		out[i] = t
	}
	return out
}

// Extractor finds facts in turns.
type Extractor interface {
	Extract(ctx context.Context, turns []Turn) ([]Fact, error)
	// Name identifies the extractor in fact metadata.
	Name() string
}

// Decision is how a fact relates to what is known.
type Decision string

// The decisions.
const (
	New         Decision = "new"
	Duplicate   Decision = "duplicate"
	Enriches    Decision = "enriches"
	Supersedes  Decision = "supersedes"
	Contradicts Decision = "contradicts"
	// Dropped: not written, because its source turns have no single
	// visibility narrower than each (see memory.Memory.Inherit).
	Dropped Decision = "dropped"
)

// normalize fills a fact's defaults and bounds its scores: kind fact,
// durability standard, confidence 0.7 and importance 0.5 when unset or out
// of range, the subject as given (trimmed).
func (f *Fact) normalize() {
	if memory.ValidKind(f.Kind) != nil {
		f.Kind = memory.KindFact
	}
	if memory.ValidDurability(f.Durability) != nil {
		f.Durability = memory.DurabilityStandard
	}
	if f.Confidence <= 0 || f.Confidence > 1 {
		f.Confidence = 0.7
	}
	if f.Importance <= 0 || f.Importance > 1 {
		f.Importance = 0.5
	}
}
