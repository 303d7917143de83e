package workstream

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/pkg/memory"
)

// rememberRE finds an entry that asks to be remembered: "remember",
// "Remember:", "REMEMBER that...".
var rememberRE = regexp.MustCompile(`(?i)\bremember\b`)

// remembers reports whether text says "remember": such an entry is never
// folded away.
func remembers(text string) bool { return rememberRE.MatchString(text) }

// target is the size a compaction brings a block of limit entries down
// to: two thirds of it, so that a block is not compacted on every append.
func target(limit int) int { return max(MinLimit, limit-limit/3) }

// compact compacts w, past its limit, in place, and returns the record of
// what it did (its Version unset), or nil when nothing could be merged or
// folded (every entry pinned):
//
//  1. duplicates (the same role and the same words, ignoring case and
//     punctuation) are merged into the newest of them, which counts the
//     repeats and keeps the highest importance;
//  2. if the block is still above its target, the entries that are not
//     pinned are ranked by importance, then age, and the lowest are
//     folded into one summary entry, written by the LLM when there is
//     one, else offline, until the block (the summary included) is at
//     its target. The newest entry and pinned entries are never folded.
//
// Every merged or folded entry is in the record, word for word.
func (s *Service) compact(ctx context.Context, w *Workstream, now int64) *Compaction {
	cp := &Compaction{At: now, Method: "offline", Before: len(w.Entries), Replaced: []Entry{}}

	// 1. Merge duplicates into the newest of each.
	newest := map[string]int{} // key -> index in w.Entries of its newest entry
	for i, e := range w.Entries {
		if !e.Summary {
			newest[dupKey(e)] = i
		}
	}
	kept := make([]Entry, 0, len(w.Entries))
	for i, e := range w.Entries {
		if e.Summary {
			kept = append(kept, e)
			continue
		}
		if j := newest[dupKey(e)]; j != i {
			cp.Merged = append(cp.Merged, Merge{Entry: e, Into: w.Entries[j].Seq})
			d := &w.Entries[j]
			d.Repeats += 1 + e.Repeats
			d.Importance = max(d.Importance, e.Importance)
			d.Pinned = d.Pinned || e.Pinned
			continue
		}
		kept = append(kept, e) // the newest of its duplicates: e holds what the older ones added
	}

	// 2. Fold the least important, oldest entries into a summary.
	goal := target(w.Limit)
	if len(kept) > goal {
		last := kept[len(kept)-1].Seq
		var candidates []int
		for i, e := range kept {
			if !e.Pinned && e.Seq != last {
				candidates = append(candidates, i)
			}
		}
		sort.SliceStable(candidates, func(a, b int) bool {
			ea, eb := kept[candidates[a]], kept[candidates[b]]
			if rank(ea) != rank(eb) {
				return rank(ea) < rank(eb)
			}
			return ea.Seq < eb.Seq
		})
		// Folding n entries into one summary removes n-1.
		n := min(len(candidates), len(kept)-goal+1)
		if n >= 2 {
			fold := map[int]bool{}
			for _, i := range candidates[:n] {
				fold[i] = true
			}
			var rest []Entry
			for i, e := range kept {
				if fold[i] {
					cp.Replaced = append(cp.Replaced, e)
				} else {
					rest = append(rest, e)
				}
			}
			sum := Entry{Seq: w.NextSeq, Role: "summary", Importance: 0.5, At: now, Summary: true}
			w.NextSeq++
			for _, e := range cp.Replaced {
				sum.Folded = append(sum.Folded, e.Seq)
				sum.Importance = max(sum.Importance, e.Importance)
			}
			sum.Text, cp.Method = s.summarise(ctx, cp.Replaced)
			// The summary takes the place of the newest entry it folds, so
			// the block still reads in order.
			at := 0
			for at < len(rest) && rest[at].Seq < cp.Replaced[len(cp.Replaced)-1].Seq {
				at++
			}
			kept = append(rest[:at], append([]Entry{sum}, rest[at:]...)...)
			cp.Summary = &sum
		}
	}
	if len(cp.Merged) == 0 && len(cp.Replaced) == 0 {
		return nil
	}
	w.Entries = kept
	cp.After = len(kept)
	if len(w.CompactedAt) >= MaxHistory {
		w.CompactedAt = w.CompactedAt[len(w.CompactedAt)-MaxHistory+1:]
	}
	return cp
}

// rank orders the entries a compaction folds first: least important
// first; a summary, which already stands for several, counts as more
// important than the entries it folded.
func rank(e Entry) float64 {
	r := e.Importance + 0.05*float64(e.Repeats)
	if e.Summary {
		r += 0.1
	}
	return r
}

// dupKey is what makes two entries duplicates: the role and the words of
// the text, in lower case, without punctuation.
func dupKey(e Entry) string {
	words := strings.FieldsFunc(strings.ToLower(e.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
	return strings.ToLower(e.Role) + "\x00" + strings.Join(words, " ")
}

// summarise writes the text of a summary of folded, with the LLM when
// there is one (offline when it fails), and says how.
func (s *Service) summarise(ctx context.Context, folded []Entry) (string, string) {
	if s.llm != nil {
		text, err := s.llmSummary(ctx, folded)
		if err == nil {
			return text, "llm"
		}
		s.log.WarnContext(ctx, "summarising a memory block with the LLM failed; summarising offline", "op", "workstream.compact", "err", err)
	}
	return offlineSummary(folded), "offline"
}

// offlineSummary names every folded entry by its seq and role, with the
// start of its text: "Folded 7 earlier notes: #1 chief: ship on Friday; ...".
func offlineSummary(folded []Entry) string {
	parts := make([]string, len(folded))
	for i, e := range folded {
		text := oneLine(e.Text)
		if len(text) > summaryExcerpt {
			cut := summaryExcerpt
			for cut > 0 && !isRuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + "…"
		}
		parts[i] = fmt.Sprintf("#%d %s: %s", e.Seq, e.Role, text)
	}
	s := fmt.Sprintf("Folded %d earlier notes: %s", len(folded), strings.Join(parts, "; "))
	if len(s) > MaxTextBytes {
		cut := MaxTextBytes - len("…")
		for cut > 0 && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// summaryTool is the structured answer the LLM must give.
var summaryTool = memory.Tool{
	Name:        "summarise_block",
	Description: "Record the summary of the notes of a memory block that are folded away.",
	Schema: map[string]any{
		"type":     "object",
		"required": []string{"summary"},
		"properties": map[string]any{
			"summary": map[string]any{"type": "string", "description": "the notes' content in a few short sentences, keeping names, numbers, dates and decisions"},
		},
	},
}

const summarySystem = `You compact an agent's memory block: a list of short, role-labelled notes.
Summarise the notes you are given into a few short sentences that keep every fact, name, number, date and decision, and who (role) said it. Do not add anything.`

// llmSummary asks the LLM for the summary of folded.
func (s *Service) llmSummary(ctx context.Context, folded []Entry) (string, error) {
	var b strings.Builder
	for _, e := range folded {
		fmt.Fprintf(&b, "- %s: %s\n", e.Role, oneLine(e.Text))
	}
	raw, _, err := s.llm.Call(ctx, summarySystem, b.String(), summaryTool)
	if err != nil {
		return "", err
	}
	var out struct {
		Summary string `json:"summary"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return "", memory.Errorf(memory.EINTERNAL, "summary: %v", err)
	}
	text := strings.TrimSpace(out.Summary)
	if err := checkText("summary", text, MaxTextBytes, false); err != nil {
		return "", err
	}
	return text, nil
}

// BlockSection returns the lines of workstream id's block for a prompt
// context ("role: text", oldest first), with the ids of its entries, as c
// sees it; it implements service.BlockSource. Errors: ENOTFOUND, EINVALID.
func (s *Service) BlockSection(ctx context.Context, c memory.Caller, id string) (name string, lines []string, err error) {
	w, err := s.read(ctx, c, id)
	if err != nil {
		return "", nil, err
	}
	for _, e := range w.Entries {
		lines = append(lines, fmt.Sprintf("- %s: %s", e.Role, oneLine(e.Text)))
	}
	name = w.Name
	if name == "" {
		name = w.ID
	}
	return name, lines, nil
}
