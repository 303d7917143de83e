// Package llm is a knowledge extractor that asks a language model, after
// TypeAgent KnowPro's knowledge extraction: for every message it records
// the entities (with types and facets), the actions (verbs, tense,
// subject, object, indirect object, parameters, the facet they imply
// about their subject, their inverse forms) and the topics the message
// states.
//
// Messages are sent in batches, several per call, each with a number,
// its speaker, its listeners and its date; the model must answer with the
// forced tool record_knowledge, whose JSON schema is the knowledge
// response, one entry per message number. The answer is parsed strictly:
// malformed items are dropped, strings cleaned, counts capped (within
// memory.MaxRefsPerMemory per message) and pronouns for the speaker and
// the listener resolved. The metadata knowledge (the speaker and the
// listeners as persons, and KnowPro's "say" action) comes from
// offline.Metadata and never depends on the model.
//
// Errors: a failed model call is EUNAVAILABLE unless the model adapter
// gave it another code (the caller keeps the memories' knowledge pending
// and retries); an answer that is not the knowledge response at all is
// EINTERNAL; a done context returns its error.
package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
)

// ToolName is the name of the tool the model must call.
const ToolName = "record_knowledge"

// Limits of what one message's answer may hold; the surplus is dropped.
const (
	MaxEntities      = 64
	MaxActions       = 64
	MaxTopics        = 32
	MaxFacets        = 16
	MaxRelatedTerms  = 8 // per entity
	MaxTypes         = 8
	MaxVerbs         = 4
	MaxParams        = 8
	MaxNameBytes     = 200
	defaultBatch     = 8
	defaultBatchText = 16 << 10
	defaultSource    = 4 << 10
)

// Options configures an Extractor. The zero value is the default.
type Options struct {
	// BatchSize is the number of messages per model call (default 8).
	BatchSize int
	// MaxBatchBytes bounds the text of one call (default 16 KiB); a batch
	// holds at least one message.
	MaxBatchBytes int
	// MaxSourceBytes of a message's text that are sent (default 4 KiB):
	// long documents are chunked into fragments before extraction.
	MaxSourceBytes int
	// Concurrency is the number of calls in flight (default 2).
	Concurrency int
	// OmitSayActions leaves out the metadata "say" actions.
	OmitSayActions bool
	// Logger receives a warning per dropped answer entry (default: discard).
	Logger *slog.Logger
}

// Extractor extracts knowledge with a language model. It is safe for
// concurrent use.
type Extractor struct {
	llm     memory.LLM
	o       Options
	log     *slog.Logger
	in, out atomic.Int64
	calls   atomic.Int64
	dropped atomic.Int64
}

// New returns an Extractor over model l.
func New(l memory.LLM, o Options) (*Extractor, error) {
	if l == nil {
		return nil, memory.Errorf(memory.EINVALID, "llm: a language model is required")
	}
	if o.BatchSize <= 0 {
		o.BatchSize = defaultBatch
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = defaultBatchText
	}
	if o.MaxSourceBytes <= 0 {
		o.MaxSourceBytes = defaultSource
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Extractor{llm: l, o: o, log: log}, nil
}

// Name implements memory.KnowledgeExtractor.
func (e *Extractor) Name() string { return "llm-knowpro-v1" }

// Usage returns the tokens and calls used so far.
func (e *Extractor) Usage() memory.Usage {
	return memory.Usage{InputTokens: e.in.Load(), OutputTokens: e.out.Load(), Calls: e.calls.Load()}
}

// Dropped returns how many answer entries and items were dropped as
// malformed so far.
func (e *Extractor) Dropped() int64 { return e.dropped.Load() }

// Extract implements memory.KnowledgeExtractor: one Knowledge per source,
// in order. Sources without text get their metadata knowledge only.
func (e *Extractor) Extract(ctx context.Context, sources []memory.KnowledgeSource) ([]memory.Knowledge, error) {
	out := make([]memory.Knowledge, len(sources))
	for i, s := range sources {
		out[i] = offline.Metadata(s, e.o.OmitSayActions)
	}
	batches := e.batches(sources)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(e.o.Concurrency)
	for _, b := range batches {
		g.Go(func() error {
			ks, err := e.call(gctx, sources, b)
			if err != nil {
				return err
			}
			for j, i := range b {
				out[i] = merge(out[i], ks[j], sources[i])
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("llm: extract knowledge: %w", ctx.Err())
		}
		return nil, err
	}
	return out, nil
}

// batches groups the indices of sources with text; a batch holds sources
// of one Readers key only, so that the model never reads one reader's
// memory beside another's and cannot attribute its knowledge across them.
func (e *Extractor) batches(sources []memory.KnowledgeSource) [][]int {
	var out [][]int
	var cur []int
	size := 0
	for i, s := range sources {
		n := min(len(strings.TrimSpace(s.Text)), e.o.MaxSourceBytes)
		if n == 0 {
			continue
		}
		if len(cur) > 0 && (len(cur) >= e.o.BatchSize || size+n > e.o.MaxBatchBytes || s.Readers != sources[cur[0]].Readers) {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, i)
		size += n
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// call asks the model about the sources of one batch and returns their
// knowledge, in batch order.
func (e *Extractor) call(ctx context.Context, sources []memory.KnowledgeSource, batch []int) ([]memory.Knowledge, error) {
	user := e.prompt(sources, batch)
	raw, u, err := e.llm.Call(ctx, systemPrompt, user, Tool())
	e.in.Add(u.InputTokens)
	e.out.Add(u.OutputTokens)
	e.calls.Add(1)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if memory.ErrorCode(err) == memory.EINTERNAL {
			// The adapter did not say why: count the model as unavailable,
			// so that the caller retries later.
			return nil, fmt.Errorf("llm: extract knowledge of %d messages: %w: %w", len(batch),
				&memory.Error{Code: memory.EUNAVAILABLE, Message: "the knowledge model is unavailable; retry later"}, err)
		}
		return nil, fmt.Errorf("llm: extract knowledge of %d messages: %w", len(batch), err)
	}
	speakers := make([]speakerInfo, len(batch))
	for j, i := range batch {
		speakers[j] = speakerInfo{speaker: sources[i].Speaker}
		if ls := listeners(sources[i]); len(ls) == 1 {
			speakers[j].listener = ls[0]
		}
	}
	ks, dropped, err := parse(raw, speakers)
	if err != nil {
		return nil, fmt.Errorf("llm: extract knowledge of %d messages: %w", len(batch), err)
	}
	if dropped > 0 {
		e.dropped.Add(int64(dropped))
		e.log.Warn("llm knowledge: malformed answer items dropped", "messages", len(batch), "dropped", dropped)
	}
	return ks, nil
}

func listeners(s memory.KnowledgeSource) []string {
	var out []string
	for _, l := range s.Listeners {
		if l = strings.TrimSpace(l); l != "" && !strings.EqualFold(l, strings.TrimSpace(s.Speaker)) {
			out = append(out, l)
		}
	}
	return out
}

// prompt renders the messages of a batch, numbered from 1.
func (e *Extractor) prompt(sources []memory.KnowledgeSource, batch []int) string {
	var b strings.Builder
	b.WriteString("Record the knowledge of each of these messages, by number.\n\n")
	for j, i := range batch {
		s := sources[i]
		fmt.Fprintf(&b, "[%d]", j+1)
		if sp := strings.TrimSpace(s.Speaker); sp != "" {
			fmt.Fprintf(&b, " speaker: %s;", sp)
		}
		if ls := listeners(s); len(ls) > 0 {
			fmt.Fprintf(&b, " to: %s;", strings.Join(ls, ", "))
		}
		if s.CreatedAt > 0 {
			fmt.Fprintf(&b, " date: %s;", time.UnixMilli(s.CreatedAt).UTC().Format("Monday 2 January 2006 15:04 UTC"))
		}
		if s.Type != "" && s.Type != memory.TypeMessage {
			fmt.Fprintf(&b, " kind: %s;", s.Type)
		}
		text := strings.TrimSpace(s.Text)
		if len(text) > e.o.MaxSourceBytes {
			cut := e.o.MaxSourceBytes
			for cut > 0 && cut < len(text) && text[cut]&0xC0 == 0x80 {
				cut--
			}
			text = text[:cut]
		}
		fmt.Fprintf(&b, "\n%s\n\n", text)
	}
	return b.String()
}

const systemPrompt = `You index a conversation for a long-term memory. For every numbered message you are given, call the tool ` + ToolName + ` once with one entry per message number, holding what that message itself states:

- entities: the specific, tangible people, places, institutions, works and things it mentions ("Bach", "Lisbon", "The Hobbit", "frog", "piano"), not abstract ideas. Name them as written, and name the speaker and the listeners by their names, never "I", "me" or "you". Types are single lower-case words, several if they apply: person, place, city, country, animal, pet, book, movie, song, instrument, food, sport, school, company, event... Facets are concise lasting properties of the entity: relation (sister of Ana), occupation (nurse), age (with amount and units), color, favorite book, likes... not passing moods or one-off actions.
- relatedTerms of an entity: other words a person could search for it by, as you know them: its other names, abbreviations and spellings, and close synonyms ("AI" for "artificial intelligence", "NYC" for "New York City", "sneakers" for "trainers"), at most 8, none if you know none.
- actions: what an entity did, does or will do. verbs: the verb in its base form, usually one word ("adopt", "move"); tense: past, present or future; subject, object and indirectObject: names of entities of the list, or "none"; params: other details as name and value, such as time (as said: "last summer"), date (the calendar date, when the message date makes it certain), place, duration, with, reason; negated: true when the message says it did not or will not happen; subjectFacet: the lasting property the action implies about its subject (a hobby, a liking, a dislike, a wish), such as likes: jazz.
- inverseActions: the reverse form of actions that can be said the other way round ("Ana gave Bo a book" also gives "Bo receive book from Ana"), fully filled in.
- topics: detailed, descriptive topics and keywords of the message.
- topicSentence: one short sentence, at most 15 words, saying what the message is about, with the speaker and the listeners named ("Ana plans a hiking trip to the Alps with Bo"); empty for greetings, thanks and small talk.

Record only what is stated or certainly implied; record nothing for greetings, thanks, questions and small talk (empty lists). Do not copy information from one message into another.`

// Tool returns the forced tool whose input is the knowledge response.
func Tool() memory.Tool {
	str := map[string]any{"type": "string"}
	strs := map[string]any{"type": "array", "items": str}
	facet := map[string]any{
		"type":     "object",
		"required": []string{"name", "value"},
		"properties": map[string]any{
			"name":   str,
			"value":  map[string]any{"type": []string{"string", "number", "boolean"}, "description": "very concise"},
			"amount": map[string]any{"type": "number", "description": "for a quantity: 3 in \"3 years\""},
			"units":  map[string]any{"type": "string", "description": "for a quantity: years in \"3 years\""},
		},
	}
	action := map[string]any{
		"type":     "object",
		"required": []string{"verbs", "tense", "subject", "object", "indirectObject"},
		"properties": map[string]any{
			"verbs":          strs,
			"tense":          map[string]any{"type": "string", "enum": []string{memory.TensePast, memory.TensePresent, memory.TenseFuture}},
			"subject":        str,
			"object":         str,
			"indirectObject": str,
			"params": map[string]any{"type": "array", "items": map[string]any{
				"type": "object", "required": []string{"name", "value"},
				"properties": map[string]any{"name": str, "value": str}}},
			"negated":      map[string]any{"type": "boolean"},
			"subjectFacet": facet,
		},
	}
	entity := map[string]any{
		"type":     "object",
		"required": []string{"name", "types"},
		"properties": map[string]any{
			"name":   str,
			"types":  strs,
			"facets": map[string]any{"type": "array", "items": facet},
			"relatedTerms": map[string]any{"type": "array", "items": str, "maxItems": MaxRelatedTerms,
				"description": "other names, abbreviations and close synonyms of the entity"},
		},
	}
	return memory.Tool{
		Name:        ToolName,
		Description: "Record the entities, actions, topics and topic sentence of each numbered message.",
		Schema: map[string]any{
			"type":     "object",
			"required": []string{"messages"},
			"properties": map[string]any{
				"messages": map[string]any{
					"type": "array",
					"items": map[string]any{
						"type":     "object",
						"required": []string{"id", "entities", "actions", "topics"},
						"properties": map[string]any{
							"id":             map[string]any{"type": "integer", "description": "the message number, in brackets before it"},
							"entities":       map[string]any{"type": "array", "items": entity},
							"actions":        map[string]any{"type": "array", "items": action},
							"inverseActions": map[string]any{"type": "array", "items": action},
							"topics":         strs,
							"topicSentence":  map[string]any{"type": "string", "description": "what the message is about, in one short sentence"},
						},
					},
				},
			},
		},
	}
}

// jsonRaw is what the answer's entries are decoded from, one level at a
// time, so that a malformed item loses only itself.
type jsonRaw = json.RawMessage
