package termkit

import (
	"sort"

	"github.com/agentmem/agentmem/pkg/memory"
)

// VocabularyScopes returns the vocabulary counter scopes whose sum is what
// f can see, and whether counters answer f at all: they do when f sets
// nothing beyond the org, viewer, agent and IncludeArchived (a reader
// acting for a room or a user is answered from the postings). The scopes are
// ScopeAll, or ScopeOf(agent) of the org scope ("") and of one agent. A nil
// slice with ok true means f sees nothing (an agent-bound viewer asking
// for another agent).
func VocabularyScopes(f memory.Filter) (scopes []string, ok bool) {
	if f.Audiences != nil || len(f.Types) > 0 || len(f.Kinds) > 0 || f.Durability != "" || f.RoomID != "" || f.WorldID != "" || f.EntityID != "" ||
		f.SessionID != "" || f.DocumentID != "" || f.Start != 0 || f.End != 0 {
		return nil, false
	}
	switch {
	case f.AgentID == memory.OrgScope:
		return []string{ScopeOf("")}, true
	case f.AgentID != "":
		if f.Viewer != "" && f.Viewer != f.AgentID {
			return nil, true
		}
		return []string{ScopeOf(f.AgentID)}, true
	case f.Viewer != "":
		return []string{ScopeOf(""), ScopeOf(f.Viewer)}, true
	}
	return []string{ScopeAll}, true
}

// ScopeAll is the vocabulary counter scope of every memory of an org.
const ScopeAll = "*"

// ScopeOf is the vocabulary counter scope of the memories of one agent
// ("" for the org scope).
func ScopeOf(agentID string) string { return "a:" + agentID }

// VocabularyDelta is how one memory's knowledge changes the vocabulary
// counters: per (scope, term), the change in refs of live and of archived
// memories.
type VocabularyDelta map[ScopedTerm]TermDelta

// ScopedTerm is a vocabulary counter's key.
type ScopedTerm struct{ Scope, Term string }

// TermDelta is a change of a vocabulary counter.
type TermDelta struct{ Live, Archived int }

// AddVocabulary adds sign times the counts of refs (in a memory with attrs)
// to d: each ref counts once per distinct term, in the memory's agent scope
// and in ScopeAll, as live or archived.
func (d VocabularyDelta) AddVocabulary(attrs memory.Attrs, refs []memory.SemanticRef, sign int) {
	for _, r := range refs {
		for _, t := range memory.DistinctTerms(r) {
			for _, s := range []string{ScopeAll, ScopeOf(attrs.AgentID)} {
				k := ScopedTerm{s, t}
				v := d[k]
				if attrs.Archived {
					v.Archived += sign
				} else {
					v.Live += sign
				}
				if v == (TermDelta{}) {
					delete(d, k)
				} else {
					d[k] = v
				}
			}
		}
	}
}

// Sorted returns d's keys in (scope, term) order, for deterministic writes.
func (d VocabularyDelta) Sorted() []ScopedTerm {
	keys := make([]ScopedTerm, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].Scope != keys[j].Scope {
			return keys[i].Scope < keys[j].Scope
		}
		return keys[i].Term < keys[j].Term
	})
	return keys
}
