package query

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// ToolName is the tool the model must call with the expression.
const ToolName = "search_query"

// LLMTranslator turns a question into an expression with a language model
// that must answer by calling the tool search_query, whose input schema is
// (a simplified form of) the expression. The answer is validated by Parse;
// an invalid answer or an unavailable model falls back to the offline
// Translator, with a warning in the log. The fields other than LLM have
// working zero values.
type LLMTranslator struct {
	LLM memory.LLM
	// Offline is the fallback translator.
	Offline Translator
	// Logger receives a warning per fallback (default: discard).
	Logger *slog.Logger
}

// Translate turns a question into an expression, resolving times against
// now. The model may not set the scope, limit or relatedTerms of the
// expression: they are the caller's, and are dropped from its answer.
// Errors: EINVALID for a bad text (as Translator.Translate); a done
// context's error. A model failure is never an error: the offline
// translator answers instead.
func (t *LLMTranslator) Translate(ctx context.Context, text string, now time.Time) (*Expr, error) {
	if err := checkText(text); err != nil {
		return nil, err
	}
	if t.LLM == nil {
		return t.Offline.Translate(text, now)
	}
	raw, _, err := t.LLM.Call(ctx, translatorPrompt, userMessage(text, now), SearchQueryTool())
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t.log().WarnContext(ctx, "knowledge query: the model is unavailable, translating offline", "err", err)
		return t.Offline.Translate(text, now)
	}
	x, err := Parse(raw)
	if err != nil {
		t.log().WarnContext(ctx, "knowledge query: the model's expression is invalid, translating offline",
			"err", memory.ErrorMessage(err))
		return t.Offline.Translate(text, now)
	}
	x.Scope, x.Limit, x.RelatedTerms = nil, 0, nil
	singularTypes(x.Select)
	return x.Normalized()
}

func (t *LLMTranslator) log() *slog.Logger {
	if t.Logger != nil {
		return t.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// singularTypes puts entity types in the singular, as extractors index
// them ("books" → "book").
func singularTypes(n *Node) {
	if n == nil {
		return
	}
	for i := range n.And {
		singularTypes(&n.And[i])
	}
	for i := range n.Or {
		singularTypes(&n.Or[i])
	}
	singularTypes(n.Not)
	if n.Entity != nil {
		for i, t := range n.Entity.Types {
			n.Entity.Types[i] = en.Singular(t)
		}
	}
}

func userMessage(text string, now time.Time) string {
	return fmt.Sprintf("Current date and time: %s (%s).\nQuestion: %s", now.Format(time.RFC3339), now.Weekday(), text)
}

// translatorPrompt tells the model how to write an expression, after the
// guidance of KnowPro's search query schema, in our words.
const translatorPrompt = `You translate a user's question into a search over a memory of past conversations. The memory holds knowledge extracted from every message: entities (people, places, things, with types such as person, city, book, sport, animal, and facets such as color=blue or occupation=nurse), actions (verbs in their base form with a subject, an object, an indirect object and a tense), and topics. Answer only by calling the search_query tool.

How to write the query:
- "select" is a boolean tree. Leaves: "entity" (name, types, facets), "action" (verbs, subject, object, indirectObject, tense), "topic", "term", "property" (name and value of a facet; with "op" one of eq, ne, lt, lte, gt, gte to compare numbers, dates (YYYY-MM-DD) or strings, or "in" with "values": "people older than 30" is {"property": {"name": "age", "op": "gt", "value": "30"}}). Combine them with "or", "and", "not".
- Use entity leaves for specific, tangible people, places, organizations and things. Put the name as written (not a pronoun). Types are single singular nouns ("book", not "books"; never generic words like "thing" or "object").
- A question asking for a kind of thing ("what sports", "which books", "who") becomes an entity leaf with only types: ["sport"], ["book"], ["person"]. "Where" becomes types ["place", "city", "country"].
- Use an action leaf when the question names who did something: verbs in their base form ("move", not "moved").
- Abstract concepts and other content words go in "terms" (or in term leaves). Leave out words about the conversation itself ("talk", "mention", "discuss", "topic") and function words.
- Questions over-specify: prefer "or" over "and", so that a memory matching part of the question is still found. Use "and" or "not" only when the question clearly requires every part or excludes one.
- "time": set only when the question names a time. Give "start" and/or "end" in RFC 3339, computed from the current date given with the question (for example "last month", "in May 2023", "before 2022"), or "expression" with the time words themselves. For a time relative to an event ("before the trip"), give "relation" ("before" or "after") and the event's words in "anchor".
- Set "askTime" to true when the question asks when something happened.
- Do not set scope or limit.`

// SearchQueryTool is the tool the model must call: its input schema is the
// expression, simplified (the children of and, or and not are described
// as objects of the same shape as select, without recursion).
func SearchQueryTool() memory.Tool {
	str := map[string]any{"type": "string"}
	strList := map[string]any{"type": "array", "items": str}
	entity := map[string]any{
		"type":        "object",
		"description": "A specific person, place, organization or thing: its name, any of its types, and facets it must have.",
		"properties": map[string]any{
			"name":  str,
			"types": strList,
			"facets": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []any{"name"},
				"properties": map[string]any{"name": str, "value": str}}},
		},
	}
	action := map[string]any{
		"type":        "object",
		"description": "Something someone did, does or will do; all given parts must belong to one action.",
		"properties": map[string]any{
			"verbs":          strList,
			"subject":        str,
			"object":         str,
			"indirectObject": str,
			"tense":          map[string]any{"type": "string", "enum": []any{"past", "present", "future"}},
		},
	}
	child := map[string]any{"type": "object", "description": "A node of the same shape as select."}
	node := map[string]any{
		"type":        "object",
		"description": "Exactly one of: and, or, not, entity, action, topic, term, property.",
		"properties": map[string]any{
			"and":    map[string]any{"type": "array", "items": child},
			"or":     map[string]any{"type": "array", "items": child},
			"not":    child,
			"entity": entity,
			"action": action,
			"topic":  str,
			"term":   str,
			"property": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{"name": str,
				"op": map[string]any{"type": "string", "enum": []any{"eq", "ne", "lt", "lte", "gt", "gte", "in"}}, "value": str,
				"values": map[string]any{"type": "array", "items": str}}},
		},
	}
	return memory.Tool{
		Name:        ToolName,
		Description: "Search the memory with a structured query.",
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"select": node,
				"terms":  map[string]any{"type": "array", "items": str, "description": "Free search terms, matched anywhere."},
				"time": map[string]any{"type": "object", "properties": map[string]any{
					"start":      map[string]any{"type": "string", "description": "RFC 3339, inclusive"},
					"end":        map[string]any{"type": "string", "description": "RFC 3339, exclusive"},
					"expression": map[string]any{"type": "string", "description": "time words such as \"last month\", instead of start and end"},
					"relation":   map[string]any{"type": "string", "enum": []any{"before", "after"}},
					"anchor":     map[string]any{"type": "array", "items": str, "description": "words of the event the relation refers to"},
				}},
				"askTime": map[string]any{"type": "boolean", "description": "the question asks when something happened"},
			},
		},
	}
}
