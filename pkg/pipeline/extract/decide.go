package extract

import (
	"math"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The decision rules, tried against every known fact of the same subject
// in the scope the new fact goes to; the strongest decision wins
// (duplicate, then supersedes, contradicts, enriches, new), and among
// equals the most similar known fact. Each decision names its rule in the
// fact's metadata.
//
//	rule                         needs (besides the same subject)                               decision
//	same-text                    the same normalized text                                      duplicate
//	same-slot-value              the same slot, value and polarity                             duplicate
//	near-identical               cosine >= DuplicateAt, the same polarity, and no slot or      duplicate
//	                             value that differs
//	change-same-slot             the same slot, a stated change, another value or polarity     supersedes
//	change-names-old-value       the same slot family, a stated change whose words name the    supersedes
//	                             known fact's value ("I prefer coffee now, tea keeps me awake")
//	change-denies-value          a stated change, negated, whose value is the known fact's     supersedes
//	                             value, whatever the slot ("I do not use Neovim anymore" ends
//	                             "Maya's favourite editor is Neovim")
//	same-slot-opposite-polarity  the same slot, opposite polarity, no stated change            contradicts
//	single-valued-slot           the same single-valued slot, another value, no stated change  contradicts
//	same-slot                    the same keyed slot and polarity, other words                 enriches
//	same-family                  the same slot family, another slot (adds, does not replace)   enriches
//	cosine                       cosine >= RelatedAt                                           enriches
//	unrelated                    anything else, including another subject                      new
//
// Facts of another subject never duplicate, supersede, contradict or
// enrich, whatever their similarity: "Maya does not eat gluten" and "Maya's
// birthday is 14 July" share a subject but not a slot, so the first is new.
// Known facts without subject metadata (written before it existed) count
// with their entity as subject and no slot, so they can be duplicated or
// enriched but never superseded or contradicted.
var priority = map[Decision]int{New: 0, Enriches: 1, Contradicts: 2, Supersedes: 3, Duplicate: 4}

// known is a candidate fact as the rules compare it.
type known struct {
	m       *memory.Memory
	subject string // normalized
	slot    string // normalized
	value   string // normalized
	negated bool
	cosine  float64
}

var negatedRe = regexp.MustCompile(`(?i)\b(don't|do not|does not|doesn't|never|no longer|not|isn't|can't|cannot|won't|hates?|dislikes?)\b`)

func knownOf(r memory.SearchResult) known {
	meta := memory.FactMetaOf(r.Memory)
	k := known{m: r.Memory, slot: normalizeSlot(meta.Slot), value: normalizeValue(meta.Value), negated: meta.Negated}
	subject := meta.Subject
	if subject == "" {
		subject = r.Memory.EntityID
		k.negated = negatedRe.MatchString(r.Memory.Content.Text)
	}
	k.subject = memory.NormalizeSubject(subject)
	if r.Semantic != nil {
		k.cosine = r.Semantic.Score
	}
	return k
}

// classify applies the rules to f and one known fact.
func classify(f Fact, k known, dupAt, relAt float64) memory.FactDecision {
	slot, val := normalizeSlot(f.Slot), normalizeValue(f.Value)
	d := memory.FactDecision{Kind: string(New), Target: k.m.ID, Rule: "unrelated", Scores: map[string]float64{"cosine": round3(k.cosine)}}
	decide := func(kind Decision, rule string) memory.FactDecision {
		d.Kind, d.Rule = string(kind), rule
		return d
	}
	if k.subject != memory.NormalizeSubject(f.Subject) {
		return decide(New, "unrelated")
	}
	if memory.NormalizeText(k.m.Content.Text) == memory.NormalizeText(f.Text) {
		return decide(Duplicate, "same-text")
	}
	sameSlot := slot != "" && slot == k.slot
	if sameSlot && val != "" && val == k.value && f.Negated == k.negated {
		return decide(Duplicate, "same-slot-value")
	}
	slotsAgree := slot == "" || k.slot == "" || sameSlot
	valuesAgree := val == "" || k.value == "" || val == k.value
	if k.cosine >= dupAt && f.Negated == k.negated && slotsAgree && valuesAgree {
		return decide(Duplicate, "near-identical")
	}
	if sameSlot {
		otherValue := val != "" && k.value != "" && val != k.value
		switch {
		case f.Change && (otherValue || f.Negated != k.negated):
			return decide(Supersedes, "change-same-slot")
		case f.Negated != k.negated:
			return decide(Contradicts, "same-slot-opposite-polarity")
		case otherValue && singleValued(slot):
			return decide(Contradicts, "single-valued-slot")
		}
		return decide(Enriches, "same-slot")
	}
	if f.Change && f.Negated && !k.negated && val != "" && val == k.value {
		return decide(Supersedes, "change-denies-value")
	}
	sameFamily := slot != "" && k.slot != "" && memory.SlotFamily(slot) == memory.SlotFamily(k.slot)
	if sameFamily && f.Change && namesValue(f.Quote+" "+f.Text, k) {
		return decide(Supersedes, "change-names-old-value")
	}
	if sameFamily {
		return decide(Enriches, "same-family")
	}
	if k.cosine >= relAt {
		return decide(Enriches, "cosine")
	}
	return decide(New, "unrelated")
}

// namesValue reports whether text names the thing k's fact is about: the
// last word of its slot's qualifier (or of its value), singular or plural.
func namesValue(text string, k known) bool {
	thing := k.value
	if _, q, ok := strings.Cut(k.slot, ":"); ok && q != "" {
		thing = q
	}
	words := strings.Fields(thing)
	if len(words) == 0 {
		return false
	}
	head := strings.TrimSuffix(words[len(words)-1], "s")
	if len(head) < 3 {
		return false
	}
	re, err := regexp.Compile(`(?i)\b` + regexp.QuoteMeta(head) + `(s|es)?\b`)
	return err == nil && re.MatchString(text)
}

// decide classifies f against the known facts (most similar first).
func decide(f Fact, cands []known, dupAt, relAt float64) (memory.FactDecision, *memory.Memory) {
	best := memory.FactDecision{Kind: string(New), Rule: "no-known-fact"}
	var target *memory.Memory
	for _, k := range cands {
		d := classify(f, k, dupAt, relAt)
		if priority[Decision(d.Kind)] > priority[Decision(best.Kind)] {
			best, target = d, k.m
		}
	}
	if target == nil {
		best.Target = ""
		if len(cands) > 0 {
			best.Rule = "unrelated"
			best.Scores = map[string]float64{"cosine": round3(cands[0].cosine)}
		}
	} else if Decision(best.Kind) != Duplicate {
		best.TargetText = clip(target.Content.Text, maxTargetText)
	}
	best.Subject, best.Slot = f.Subject, normalizeSlot(f.Slot)
	return best, target
}

// maxTargetText bounds the known fact's text kept in a decision, so that
// metadata stays far below memory.MaxMetadataBytes.
const maxTargetText = 500

// clip shortens s to at most n bytes, at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
