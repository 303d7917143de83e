// Package extract pulls durable facts out of conversation turns and merges
// them into what an org already knows: each fact is compared with similar
// existing facts and classified new, duplicate, enriches, supersedes or
// contradicts; new facts are written, superseded ones archived, and the
// decisions recorded as relations with provenance back to the source turns.
package extract

import (
	"context"
	"strings"

	"github.com/agentmem/agentmem/memory"
)

// Turn is one conversation message given to an extractor.
type Turn struct {
	ID      string `json:"id"`
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// Fact is a statement an extractor found.
type Fact struct {
	// Text states the fact on its own, naming its subject ("Ana prefers tea").
	Text       string            `json:"text"`
	Kind       memory.Kind       `json:"kind"`
	Confidence float64           `json:"confidence"`
	Durability memory.Durability `json:"durability"`
	// Entity is who or what the fact is about (usually the speaker).
	Entity string `json:"entity"`
	// Change marks a fact stated as a change of an earlier one ("now",
	// "anymore", "switched to"); Negated a fact that denies something.
	Change  bool `json:"change"`
	Negated bool `json:"negated"`
	// Sources are the ids of the turns it comes from.
	Sources []string `json:"sources"`
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
)

// smallTalk reports whether a turn carries nothing worth extracting:
// greetings, thanks, acknowledgements and other very short turns.
func smallTalk(text string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!?,"))
	if len(strings.Fields(t)) < 3 {
		return true
	}
	for _, p := range []string{"hi ", "hello", "hey ", "thanks", "thank you", "good morning", "good night", "bye", "see you", "ok ", "okay"} {
		if strings.HasPrefix(t, p) && len(strings.Fields(t)) < 6 {
			return true
		}
	}
	return false
}
