package memory

import (
	"encoding/json"
	"strings"
)

// FactDecision is how the extraction pipeline classified a fact against what
// was already known, kept in the fact's metadata under "decision" so that a
// user can see which fact it was compared with, by which rule and scores.
type FactDecision struct {
	// Kind is new, duplicate, enriches, supersedes or contradicts.
	Kind string `json:"kind"`
	// Target is the known fact it duplicates, enriches, supersedes or
	// contradicts; TargetText that fact's text when it was decided.
	Target     string `json:"target,omitempty"`
	TargetText string `json:"targetText,omitempty"`
	// Rule names the rule that decided (see package extract).
	Rule string `json:"rule"`
	// Scores are the measures the rule looked at ("cosine", ...).
	Scores map[string]float64 `json:"scores,omitempty"`
	// Subject and Slot are what the fact is about, as compared.
	Subject string `json:"subject,omitempty"`
	Slot    string `json:"slot,omitempty"`
}

// FactMeta is the part of a fact memory's metadata that the pipelines write
// and read: what the fact is about (subject, attribute slot, value,
// polarity), whether it is contested by another fact, and the extraction
// decision. The JSON keys are those of the metadata object, so a client
// finds contested facts with metadata.contested == true.
type FactMeta struct {
	Subject string `json:"subject,omitempty"`
	Slot    string `json:"slot,omitempty"`
	Value   string `json:"value,omitempty"`
	Negated bool   `json:"negated,omitempty"`
	// Contested marks a fact that contradicts a live fact and was kept
	// beside it, because neither side was clearly stronger; ContestedWith
	// lists the other facts (each also holds a contradicts relation).
	Contested     bool          `json:"contested,omitempty"`
	ContestedWith []string      `json:"contestedWith,omitempty"`
	Decision      *FactDecision `json:"decision,omitempty"`
}

// Keys of FactMeta in a memory's metadata object.
const (
	MetaSubject       = "subject"
	MetaSlot          = "slot"
	MetaValue         = "value"
	MetaNegated       = "negated"
	MetaContested     = "contested"
	MetaContestedWith = "contestedWith"
	MetaDecision      = "decision"
)

// FactMetaOf reads the fact metadata of m; the zero value when m has none
// or its metadata is not an object.
func FactMetaOf(m *Memory) FactMeta {
	var f FactMeta
	if m != nil && len(m.Metadata) > 0 {
		json.Unmarshal(m.Metadata, &f)
	}
	return f
}

// NormalizeSubject is the form in which two fact subjects are compared:
// NormalizeText, without a leading article, possessive "'s" and "s'"
// kept, curly apostrophes straightened ("The  Maya’s sister" and "maya's
// sister" are the same subject).
func NormalizeSubject(s string) string {
	s = NormalizeText(strings.ReplaceAll(s, "’", "'"))
	for _, a := range []string{"the ", "a ", "an "} {
		s = strings.TrimPrefix(s, a)
	}
	return strings.TrimSpace(s)
}

// SlotFamily is the family of an attribute slot: the part before the first
// colon ("preference" of "preference:jazz").
func SlotFamily(slot string) string {
	f, _, _ := strings.Cut(slot, ":")
	return f
}
