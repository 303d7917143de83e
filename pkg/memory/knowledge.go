package memory

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// The Structured RAG vocabulary, after TypeAgent's KnowPro: knowledge is
// extracted from memories (messages, fragments, facts) as entities, actions,
// topics and tags. Each item is a SemanticRef that points back to the memory
// it came from and the text range within it. The refs are indexed by term
// (entity names and types, facet names and values, verbs, topic words) and by
// property (facet name and value), per org, in a TermIndex kept in the store;
// they are derived data, rebuilt from the memories and deleted with them.

// KnowledgeKind is what a semantic ref holds.
type KnowledgeKind string

// The knowledge kinds.
const (
	KnowledgeEntity KnowledgeKind = "entity"
	KnowledgeAction KnowledgeKind = "action"
	KnowledgeTopic  KnowledgeKind = "topic"
	KnowledgeTag    KnowledgeKind = "tag"
	// KnowledgeSentence is a turn's topic sentence (Knowledge.TopicSentence):
	// what the turn is about, in a short sentence, indexed by its words in
	// the topic role.
	KnowledgeSentence KnowledgeKind = "sentence"
)

// KnowledgeKinds lists every valid KnowledgeKind.
var KnowledgeKinds = []KnowledgeKind{KnowledgeEntity, KnowledgeAction, KnowledgeTopic, KnowledgeTag, KnowledgeSentence}

// MaxTopicSentenceBytes bounds a topic sentence; extractors cut longer ones
// at a word (CutTopicSentence).
const MaxTopicSentenceBytes = 160

// Quantity is a measured facet value ("3 years", "5 km").
type Quantity struct {
	Amount float64 `json:"amount"`
	Units  string  `json:"units,omitempty"`
}

// Facet is a property of an entity: a name and a value, optionally a
// quantity ("color: blue", "age: 3 years", "diet: vegetarian").
type Facet struct {
	Name     string    `json:"name"`
	Value    string    `json:"value"`
	Quantity *Quantity `json:"quantity,omitempty"`
}

// String renders the facet value, with its quantity when it has one.
func (f Facet) String() string {
	if f.Quantity != nil {
		v := strconv.FormatFloat(f.Quantity.Amount, 'f', -1, 64)
		if f.Quantity.Units != "" {
			v += " " + f.Quantity.Units
		}
		return v
	}
	return f.Value
}

// FacetRelatedTerm is the facet name of a term a language model offered,
// during extraction, as related to an entity (another name, an
// abbreviation, a close synonym): the related-terms index takes it as an
// alias of the entity's name, marked by this name as the model's.
const FacetRelatedTerm = "related term"

// Entity is a person, place, thing or concept a memory mentions, with its
// types ("person", "book", "city") and facets. ID is the org's registered
// entity (EntityProfile) the name resolved to, when one did: Name is then
// its display name, whatever name or alias the memory used.
type Entity struct {
	ID     string   `json:"id,omitempty"`
	Name   string   `json:"name"`
	Types  []string `json:"types"`
	Facets []Facet  `json:"facets,omitempty"`
}

// Tenses of an action.
const (
	TensePast    = "past"
	TensePresent = "present"
	TenseFuture  = "future"
)

// ActionParam is a named parameter of an action ("when: yesterday").
type ActionParam struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Action is something an entity did, does or will do: "Ana (subject) moved
// (verb) to Lisbon (indirect object)". SubjectFacet is the facet the action
// implies about its subject ("Ana likes jazz" gives Ana "likes: jazz").
// Negated marks an action said not to happen ("I didn't go", "Ana never
// eats meat"): the verbs are those of the affirmative form.
type Action struct {
	Verbs          []string      `json:"verbs"`
	Tense          string        `json:"tense,omitempty"`
	Subject        string        `json:"subject,omitempty"`
	Object         string        `json:"object,omitempty"`
	IndirectObject string        `json:"indirectObject,omitempty"`
	Params         []ActionParam `json:"params,omitempty"`
	SubjectFacet   *Facet        `json:"subjectFacet,omitempty"`
	Negated        bool          `json:"negated,omitempty"`
}

// Knowledge is what an extractor found in one memory.
//
// The optional ranges say where in the memory's text each item was found:
// EntityRanges[i] for Entities[i], ActionRanges[i] for Actions[i],
// TopicRanges[i] for Topics[i]. An extractor that cannot tell leaves them
// nil; a slice whose length differs from its items' is ignored, and a zero
// range means the whole memory.
type Knowledge struct {
	Entities []Entity `json:"entities,omitempty"`
	Actions  []Action `json:"actions,omitempty"`
	Topics   []string `json:"topics,omitempty"`
	Tags     []string `json:"tags,omitempty"`
	// TopicSentence is what the memory (a conversation turn) is about, in
	// one short sentence ("Caroline went to an LGBTQ support group"); ""
	// when the extractor made none.
	TopicSentence string `json:"topicSentence,omitempty"`

	EntityRanges []TextRange `json:"entityRanges,omitempty"`
	ActionRanges []TextRange `json:"actionRanges,omitempty"`
	TopicRanges  []TextRange `json:"topicRanges,omitempty"`
}

// rangeAt returns rs[i] when rs has one range per item (n of them).
func rangeAt(rs []TextRange, n, i int) TextRange {
	if len(rs) != n {
		return TextRange{}
	}
	return rs[i]
}

// Empty reports whether k holds nothing.
func (k Knowledge) Empty() bool {
	return len(k.Entities) == 0 && len(k.Actions) == 0 && len(k.Topics) == 0 && len(k.Tags) == 0 && k.TopicSentence == ""
}

// CutTopicSentence folds white space in s and cuts it at a word to at most
// MaxTopicSentenceBytes, without trailing punctuation.
func CutTopicSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > MaxTopicSentenceBytes {
		cut := MaxTopicSentenceBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		if i := strings.LastIndexByte(s, ' '); i > 0 {
			s = s[:i]
		}
	}
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// TextRange is a span of a memory's content text, in bytes, [Start, End).
// A zero range means the whole memory.
type TextRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SemanticRef is one knowledge item and where it came from. Exactly one of
// Entity, Action and Topic (which also holds a tag or a topic sentence) is
// set, as Kind says.
type SemanticRef struct {
	MemoryID string        `json:"memoryId"`
	Ordinal  int           `json:"ordinal"` // position among the memory's refs
	Range    TextRange     `json:"range"`
	Kind     KnowledgeKind `json:"kind"`
	Entity   *Entity       `json:"entity,omitempty"`
	Action   *Action       `json:"action,omitempty"`
	Topic    string        `json:"topic,omitempty"`
}

// RefKey identifies a semantic ref within an org.
type RefKey struct {
	MemoryID string `json:"memoryId"`
	Ordinal  int    `json:"ordinal"`
}

// Key returns r's key.
func (r SemanticRef) Key() RefKey { return RefKey{MemoryID: r.MemoryID, Ordinal: r.Ordinal} }

// Refs turns the knowledge of one memory into its semantic refs, numbered
// in order: entities, actions, topics, tags, then the topic sentence, each with its text range
// when the knowledge has them. Items that are empty after normalization are
// dropped.
func (k Knowledge) Refs(memoryID string) []SemanticRef {
	var out []SemanticRef
	add := func(r SemanticRef) {
		r.MemoryID, r.Ordinal = memoryID, len(out)
		out = append(out, r)
	}
	for i := range k.Entities {
		e := k.Entities[i]
		if NormalizeTerm(e.Name) == "" {
			continue
		}
		add(SemanticRef{Kind: KnowledgeEntity, Entity: &e, Range: rangeAt(k.EntityRanges, len(k.Entities), i)})
	}
	for i := range k.Actions {
		a := k.Actions[i]
		if len(a.Verbs) == 0 || NormalizeTerm(strings.Join(a.Verbs, " ")) == "" {
			continue
		}
		add(SemanticRef{Kind: KnowledgeAction, Action: &a, Range: rangeAt(k.ActionRanges, len(k.Actions), i)})
	}
	for i, t := range k.Topics {
		if NormalizeTerm(t) != "" {
			add(SemanticRef{Kind: KnowledgeTopic, Topic: t, Range: rangeAt(k.TopicRanges, len(k.Topics), i)})
		}
	}
	for _, t := range k.Tags {
		if NormalizeTerm(t) != "" {
			add(SemanticRef{Kind: KnowledgeTag, Topic: t})
		}
	}
	if t := CutTopicSentence(k.TopicSentence); NormalizeTerm(t) != "" {
		add(SemanticRef{Kind: KnowledgeSentence, Topic: t})
	}
	return out
}

// Term roles: which part of a ref a term comes from. A query can ask for a
// term in one role ("Ana" as an action's subject) or in any.
const (
	RoleName      = "name"      // an entity's name
	RoleType      = "type"      // an entity's type
	RoleFacetName = "facet"     // a facet's name
	RoleValue     = "value"     // a facet's value
	RoleVerb      = "verb"      // an action's verb
	RoleSubject   = "subject"   // an action's subject
	RoleObject    = "object"    // an action's object or indirect object
	RoleTopic     = "topic"     // a topic, or a word of a multi-word topic
	RoleTag       = "tag"       // a tag
	RoleParam     = "parameter" // an action parameter's value
)

// RefTerm is one normalized term under which a ref is indexed.
type RefTerm struct {
	Term string `json:"term"`
	Role string `json:"role"`
}

// Terms returns the normalized terms r is indexed under, without
// duplicates, in a stable order. This is the one definition every TermIndex
// adapter indexes by, so that the stores agree.
func (r SemanticRef) Terms() []RefTerm {
	var out []RefTerm
	seen := map[RefTerm]bool{}
	add := func(s, role string) {
		t := NormalizeTerm(s)
		if t == "" || len(t) > MaxTermBytes {
			return
		}
		rt := RefTerm{Term: t, Role: role}
		if !seen[rt] {
			seen[rt] = true
			out = append(out, rt)
		}
	}
	// addWords indexes a multi-word text whole and by each content word.
	addWords := func(s, role string) {
		add(s, role)
		if words := strings.Fields(NormalizeTerm(s)); len(words) > 1 {
			for _, w := range words {
				if !en.TermStopWord(w) {
					add(w, role)
				}
			}
		}
	}
	switch r.Kind {
	case KnowledgeEntity:
		if e := r.Entity; e != nil {
			addWords(e.Name, RoleName)
			for _, t := range e.Types {
				add(t, RoleType)
			}
			for _, f := range e.Facets {
				add(f.Name, RoleFacetName)
				addWords(f.String(), RoleValue)
			}
		}
	case KnowledgeAction:
		if a := r.Action; a != nil {
			for _, v := range a.Verbs {
				add(v, RoleVerb)
			}
			addWords(a.Subject, RoleSubject)
			addWords(a.Object, RoleObject)
			addWords(a.IndirectObject, RoleObject)
			for _, p := range a.Params {
				addWords(p.Value, RoleParam)
			}
			if f := a.SubjectFacet; f != nil {
				add(f.Name, RoleFacetName)
				addWords(f.String(), RoleValue)
			}
		}
	case KnowledgeTopic:
		addWords(r.Topic, RoleTopic)
	case KnowledgeSentence:
		// by its content words only, each as a SentenceTerm: a whole
		// sentence is no term of the vocabulary (which related terms embed
		// term by term), and its words must not weigh in the knowledge
		// list as the turn's topics do
		for _, w := range strings.Fields(NormalizeTerm(r.Topic)) {
			if w = NormalizeTerm(w); w != "" && !en.TermStopWord(w) {
				add(SentenceTerm(w), RoleTopic)
			}
		}
	case KnowledgeTag:
		add(r.Topic, RoleTag)
	}
	return out
}

// Property is one facet of an entity as the property index keeps it:
// normalized name and value.
type Property struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Properties returns the normalized facets r is indexed under: an entity's
// facets, and the facet an action implies about its subject.
func (r SemanticRef) Properties() []Property {
	var fs []Facet
	if r.Entity != nil {
		fs = r.Entity.Facets
	}
	if r.Action != nil && r.Action.SubjectFacet != nil {
		fs = append(fs[:len(fs):len(fs)], *r.Action.SubjectFacet)
	}
	var out []Property
	seen := map[Property]bool{}
	for _, f := range fs {
		p := Property{Name: NormalizeTerm(f.Name), Value: NormalizeTerm(f.String())}
		if p.Name == "" || p.Value == "" || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// Limits of the knowledge layer.
const (
	MaxTermBytes        = 256 // bytes of one normalized term; longer ones are not indexed
	MaxRefsPerMemory    = 256 // semantic refs kept per memory; extractors' surplus is dropped
	MaxQueryTerms       = 64  // terms in one knowledge query, related terms excluded
	MaxTermPrefixResult = 100 // terms per prefix lookup
)

// SentenceTermPrefix marks the terms a topic sentence is indexed under:
// its words, apart from the vocabulary (DistinctTerms leaves them out, so
// no counter, related term or knowledge-list lookup sees them), found by
// the topic-description scope (SentenceTerm).
const SentenceTermPrefix = "sentence:"

// SentenceTerm is the term a topic sentence's word w is indexed under.
func SentenceTerm(w string) string { return SentenceTermPrefix + w }

// NormalizeTerm is the one normalization of terms: Unicode lower case, inner
// white space folded to one space, leading and trailing punctuation and
// space removed. Invalid UTF-8 yields "".
func NormalizeTerm(s string) string {
	if !utf8.ValidString(s) {
		return ""
	}
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r) || unicode.IsSymbol(r)
	})
}

// ValidKnowledgeKind checks k against KnowledgeKinds.
func ValidKnowledgeKind(k KnowledgeKind) error {
	for _, v := range KnowledgeKinds {
		if k == v {
			return nil
		}
	}
	return Errorf(EINVALID, "kind: %q is not one of %s", k, joinEnum(KnowledgeKinds))
}

// KnowledgeSource is the memory an extractor reads, with what it knows of
// it: its speaker, room, session and time, which become metadata knowledge
// (the speaker and addressees as entities) as in KnowPro.
type KnowledgeSource struct {
	MemoryID  string
	Type      Type
	Text      string
	Speaker   string // the message's EntityID
	Listeners []string
	RoomID    string
	SessionID string
	CreatedAt int64 // ms
	// Readers says who may read the memory (its agent and audience, see
	// ReadersOf). An extractor that reads several sources at once (a
	// model's batch) never reads sources of different readers together,
	// so that it cannot give one's knowledge to another.
	Readers string
}

// ReadersOf is the Readers key of m's knowledge source: its agent and its
// audience.
func ReadersOf(m *Memory) string { return m.AgentID + "|" + m.Audience() }

// KnowledgeExtractor finds entities, actions, topics and tags in memories.
// It returns one Knowledge per source, in order. Errors: EUNAVAILABLE when a
// model cannot be reached (the caller marks the memories' knowledge pending
// and retries); EINVALID when a source cannot be read.
type KnowledgeExtractor interface {
	Extract(ctx context.Context, sources []KnowledgeSource) ([]Knowledge, error)
	// Name identifies the extractor and its version; refs record it.
	Name() string
}

// TermCount is a term with how many refs are indexed under it.
type TermCount struct {
	Term  string `json:"term"`
	Count int    `json:"count"`
}

// SortTermCounts orders terms by count, then alphabetically.
func SortTermCounts(ts []TermCount) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].Count != ts[j].Count {
			return ts[i].Count > ts[j].Count
		}
		return ts[i].Term < ts[j].Term
	})
}

// String renders a ref for logs and prompts.
func (r SemanticRef) String() string {
	switch r.Kind {
	case KnowledgeEntity:
		if r.Entity != nil {
			return fmt.Sprintf("%s (%s)", r.Entity.Name, strings.Join(r.Entity.Types, ", "))
		}
	case KnowledgeAction:
		if a := r.Action; a != nil {
			return strings.TrimSpace(strings.Join([]string{a.Subject, strings.Join(a.Verbs, " "), a.Object, a.IndirectObject}, " "))
		}
	}
	return r.Topic
}
