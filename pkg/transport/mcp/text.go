package mcp

import (
	"fmt"
	"strings"
	"time"
)

// modelText is a tool output's text for a model: the result's content,
// compact and readable, while the structured output goes in
// structuredContent (and in the tool's output schema) for programs.
type modelText interface{ modelText() string }

func (o RememberOutput) modelText() string {
	if o.Duplicate {
		return "Already stored as " + o.ID + "."
	}
	return "Remembered as " + o.ID + "."
}

// modelText is the context itself, ready for a prompt.
func (o ContextOutput) modelText() string {
	if strings.TrimSpace(o.Context) == "" {
		return "No relevant memories."
	}
	return o.Context
}

func (o RecallOutput) modelText() string {
	ms := make([]Memory, len(o.Results))
	for i, r := range o.Results {
		ms[i] = r.Memory
	}
	return memoryLines(ms, "No memories found.")
}

func (o ListOutput) modelText() string {
	s := memoryLines(o.Memories, "No memories.")
	if o.NextCursor != "" {
		s += "\nMore: call list again with cursor " + o.NextCursor
	}
	return s
}

func (o ForgetOutput) modelText() string {
	s := fmt.Sprintf("Deleted %d %s.", o.Deleted, plural(o.Deleted, "memory", "memories"))
	if o.AuditID != "" {
		s += fmt.Sprintf(" Matched %d; %d dependent facts and %d relations removed; audit entry %s.", o.Matched, o.Facts, o.Relations, o.AuditID)
	}
	return s
}

// modelText lists the entities, topics and actions found, then the
// memories as numbered lines.
func (o KnowledgeOutput) modelText() string {
	var b strings.Builder
	items := func(title string, its []KnowledgeItem) {
		if len(its) == 0 {
			return
		}
		names := make([]string, len(its))
		for i, it := range its {
			names[i] = it.Name
			if len(it.Types) > 0 {
				names[i] += " (" + strings.Join(it.Types, ", ") + ")"
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", title, strings.Join(names, "; "))
	}
	items("Entities", o.Entities)
	items("Topics", o.Topics)
	items("Actions", o.Actions)
	ms := make([]Memory, len(o.Memories))
	for i, m := range o.Memories {
		ms[i] = m.Memory
	}
	if b.Len() > 0 && len(ms) > 0 {
		b.WriteString("Memories:\n")
	}
	if b.Len() == 0 || len(ms) > 0 {
		b.WriteString(memoryLines(ms, "Nothing found."))
	}
	return strings.TrimRight(b.String(), "\n")
}

// memoryLines renders memories as numbered lines, one a memory:
// "1. <id> [type/kind, date] text", or none when there are none.
func memoryLines(ms []Memory, none string) string {
	if len(ms) == 0 {
		return none
	}
	var b strings.Builder
	for i, m := range ms {
		typ := m.Type
		if m.Kind != "" && m.Kind != m.Type {
			typ += "/" + m.Kind
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s [%s, %s] %s", i+1, m.ID, typ, time.UnixMilli(m.CreatedAt).UTC().Format("2006-01-02"),
			strings.Join(strings.Fields(m.Text), " "))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
