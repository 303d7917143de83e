package knowledge

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/knowledge/query"
	"github.com/agentmem/agentmem/pkg/memory"
)

// Explorer is the use case behind the knowledge API (/v1/knowledge/* and
// memctl knowledge): search by query expression or natural language, list
// entities and topics, and complete terms, each bound to the caller as
// every memory read is (memory.Caller.Bind: the org from the key, an
// agent-bound key never sees another agent's memories). Index and Store are
// required; the other fields have working zero values.
type Explorer struct {
	// Index is the term index.
	Index memory.TermReader
	// Status, when set, answers Pending (the term index's extraction
	// status).
	Status memory.TermStatus
	// Store loads the memories that knowledge points to.
	Store memory.Store
	// LLM, when set, translates natural language into expressions
	// (query.LLMTranslator, which falls back to the offline translator);
	// without it the offline translator does.
	LLM memory.LLM
	// Related expands query terms (default none).
	Related query.RelatedTerms
	// Now is the clock relative time expressions are resolved against
	// (default time.Now).
	Now func() time.Time
	// Log receives the translators' and the evaluator's warnings (default:
	// discard).
	Log *slog.Logger
}

// Limits of the knowledge API.
const (
	// MaxSources is the most source memories shown per entity, topic or
	// action of a search; SourceCount says how many there were.
	MaxSources = 10
	// MaxSnippetBytes bounds a source's snippet.
	MaxSnippetBytes = 240
	// MaxTermKindPostings is how many postings of each completed term are
	// read to tell its kind and role.
	MaxTermKindPostings = 16
	// maxListScan bounds the items one filtered list page reads (a type
	// filter reads pages of the port until it has enough).
	maxListScan = 4 * memory.MaxKnowledgePage
)

// SearchRequest is a knowledge search: an expression (Query, the JSON of
// query.Expr) or a question in natural language (Text), exactly one.
type SearchRequest struct {
	Query json.RawMessage
	Text  string
	// Limit is the most memories returned, and the most entities, topics
	// and actions; 0 keeps the expression's (default query.DefaultLimit).
	Limit int
	// Filter narrows the search (room, session, agent, time...); the org
	// and viewer come from the caller.
	Filter memory.Filter
}

// Source is a memory a knowledge item was extracted from, as far as the
// caller may see it.
type Source struct {
	MemoryID  string           `json:"memoryId"`
	Type      memory.Type      `json:"type"`
	Snippet   string           `json:"snippet"`
	Range     memory.TextRange `json:"range"`
	RoomID    string           `json:"roomId,omitempty"`
	SessionID string           `json:"sessionId,omitempty"`
	EntityID  string           `json:"entityId,omitempty"`
	AgentID   string           `json:"agentId,omitempty"`
	CreatedAt int64            `json:"createdAt"`
}

// Item is what the items of a search share: the score (the sum of the
// scores of its matched refs), the terms that matched it, and its sources,
// best first, at most MaxSources of SourceCount.
type Item struct {
	Score       float64  `json:"score"`
	Terms       []string `json:"terms"`
	SourceCount int      `json:"sourceCount"`
	Sources     []Source `json:"sources"`
}

// EntityResult is a matched entity: refs merged by normalized name, with
// the name as the best ref spells it, and the union of types and facets.
type EntityResult struct {
	// ID is the registered entity the name resolved to (see
	// memory.Entity), when one did.
	ID     string         `json:"id,omitempty"`
	Name   string         `json:"name"`
	Types  []string       `json:"types"`
	Facets []memory.Facet `json:"facets,omitempty"`
	Item
}

// TopicResult is a matched topic or tag, by normalized text.
type TopicResult struct {
	Topic string `json:"topic"`
	// Tag marks a tag rather than a topic.
	Tag bool `json:"tag,omitempty"`
	// Sentence marks a turn's topic sentence rather than a noun-phrase
	// topic.
	Sentence bool `json:"sentence,omitempty"`
	Item
}

// ActionResult is a matched action: refs merged when subject, verbs,
// objects, tense and negation agree.
type ActionResult struct {
	memory.Action
	Item
}

// MemoryResult is a memory the search matched, with its score and the
// terms that matched it.
type MemoryResult struct {
	Memory *memory.Memory `json:"memory"`
	Score  float64        `json:"score"`
	Terms  []string       `json:"terms"`
}

// SearchResult is the answer to a knowledge search, each list best first.
type SearchResult struct {
	// Expression is the normalized expression that ran: the one given, or
	// the translation of the text.
	Expression *query.Expr    `json:"expression"`
	Entities   []EntityResult `json:"entities"`
	Topics     []TopicResult  `json:"topics"`
	Actions    []ActionResult `json:"actions"`
	Memories   []MemoryResult `json:"memories"`
}

func (e *Explorer) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// Search runs a knowledge search for c. Errors: EINVALID naming the part at
// fault ("query.select.and[1].entity: one of name, types, facets
// required", "text: required", "limit: ..."); EFORBIDDEN when an
// agent-bound caller names another agent (filter or the expression's
// scope); the index's and store's errors (EUNAVAILABLE...) wrapped.
func (e *Explorer) Search(ctx context.Context, c memory.Caller, r SearchRequest) (*SearchResult, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return nil, err
	}
	if r.Limit < 0 || r.Limit > query.MaxLimit {
		return nil, memory.Errorf(memory.EINVALID, "limit: %d is outside 1..%d", r.Limit, query.MaxLimit)
	}
	x, err := e.expression(ctx, r)
	if err != nil {
		return nil, err
	}
	if x.Scope != nil && x.Scope.AgentID != "" {
		if _, err := c.Bind(memory.Filter{AgentID: x.Scope.AgentID}); memory.ErrorCode(err) == memory.EFORBIDDEN {
			return nil, memory.Errorf(memory.EFORBIDDEN, "query.scope.agentId: this key is bound to agent %q and cannot read another agent's memories", c.AgentID)
		}
	}
	if r.Limit > 0 {
		x.Limit = r.Limit
	}
	if x.Limit == 0 {
		x.Limit = query.DefaultLimit
	}
	ev := &query.Evaluator{Index: e.Index, Related: e.Related, Now: e.now, Logger: e.Log, Scopes: e}
	res, err := ev.Evaluate(ctx, f, x)
	if err != nil {
		if memory.ErrorCode(err) == memory.EINVALID {
			return nil, err
		}
		return nil, fmt.Errorf("knowledge: search: %w", err)
	}
	out := &SearchResult{Expression: x, Entities: []EntityResult{}, Topics: []TopicResult{}, Actions: []ActionResult{}, Memories: []MemoryResult{}}
	if len(res.Memories) == 0 {
		return out, nil
	}
	ids := make([]string, len(res.Memories))
	for i, m := range res.Memories {
		ids[i] = m.ID
	}
	mems, err := e.visible(ctx, c, f, ids)
	if err != nil {
		return nil, fmt.Errorf("knowledge: search: load memories: %w", err)
	}
	for _, m := range res.Memories {
		if mm := mems[m.ID]; mm != nil {
			out.Memories = append(out.Memories, MemoryResult{Memory: mm, Score: m.Score, Terms: nonNil(m.Terms)})
		}
	}
	keys := make([]memory.RefKey, 0, len(res.Refs))
	for _, r := range res.Refs {
		if mems[r.Ref.MemoryID] != nil {
			keys = append(keys, r.Ref)
		}
	}
	refs, err := e.Index.Refs(ctx, c.OrgID, keys)
	if err != nil {
		return nil, fmt.Errorf("knowledge: search: load refs: %w", err)
	}
	g := newGrouper(x.Limit)
	for _, sr := range res.Refs {
		ref, ok := refs[sr.Ref]
		m := mems[sr.Ref.MemoryID]
		if !ok || m == nil {
			continue
		}
		g.add(ref, sr, m)
	}
	out.Entities, out.Topics, out.Actions = g.results()
	return out, nil
}

// expression parses or translates the request's expression.
func (e *Explorer) expression(ctx context.Context, r SearchRequest) (*query.Expr, error) {
	hasQuery := len(r.Query) > 0 && string(r.Query) != "null"
	switch {
	case hasQuery && r.Text != "":
		return nil, memory.Errorf(memory.EINVALID, "query, text: give one of them, not both")
	case hasQuery:
		x, err := query.Parse(r.Query)
		if err != nil {
			return nil, prefixPath("query", err)
		}
		return x, nil
	case r.Text != "":
		t := &query.LLMTranslator{LLM: e.LLM, Logger: e.Log}
		x, err := t.Translate(ctx, r.Text, e.now())
		if err != nil {
			if memory.ErrorCode(err) == memory.EINVALID {
				return nil, err // already names text
			}
			return nil, fmt.Errorf("knowledge: translate: %w", err)
		}
		return x, nil
	}
	return nil, memory.Errorf(memory.EINVALID, "query, text: one of them is required (an expression, or a question in natural language)")
}

// prefixPath puts field before the JSON path of an EINVALID from
// query.Parse: "select.or[1]: ..." becomes "query.select.or[1]: ...", and
// "expression: ..." becomes "query: ...".
func prefixPath(field string, err error) error {
	if memory.ErrorCode(err) != memory.EINVALID {
		return err
	}
	msg := memory.ErrorMessage(err)
	if rest, ok := strings.CutPrefix(msg, "expression:"); ok {
		return memory.Errorf(memory.EINVALID, "%s:%s", field, rest)
	}
	return memory.Errorf(memory.EINVALID, "%s.%s", field, msg)
}

// visible loads ids and keeps the memories c may see that f selects: the
// check service.Get makes, plus the filter, in case a memory moved or was
// archived since it was indexed.
func (e *Explorer) visible(ctx context.Context, c memory.Caller, f memory.Filter, ids []string) (map[string]*memory.Memory, error) {
	got, err := e.Store.GetMany(ctx, c.OrgID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*memory.Memory, len(got))
	for id, m := range got {
		if m != nil && m.ID == id && c.CanSeeMemory(m) && f.Match(m.Attrs()) {
			out[id] = m
		}
	}
	return out, nil
}

func nonNil(ts []string) []string {
	if ts == nil {
		return []string{}
	}
	return ts
}

// grouper folds the matched refs into entities, topics and actions.
type grouper struct {
	limit    int
	entities map[string]*entityAcc
	topics   map[string]*topicAcc
	actions  map[string]*actionAcc
	order    int
}

type acc struct {
	first   int // order of the best ref, for stable ties
	score   float64
	terms   map[string]bool
	sources []Source
	seen    map[string]bool
}

type entityAcc struct {
	acc
	id     string
	name   string
	types  []string
	facets []memory.Facet
}

type topicAcc struct {
	acc
	topic    string
	tag      bool
	sentence bool
}

type actionAcc struct {
	acc
	action memory.Action
}

func newGrouper(limit int) *grouper {
	return &grouper{limit: limit, entities: map[string]*entityAcc{}, topics: map[string]*topicAcc{}, actions: map[string]*actionAcc{}}
}

func (a *acc) add(order int, sr query.ScoredRef, ref memory.SemanticRef, m *memory.Memory) {
	if a.terms == nil {
		a.first, a.terms, a.seen = order, map[string]bool{}, map[string]bool{}
	}
	a.score += sr.Score
	for _, t := range sr.Terms {
		a.terms[t] = true
	}
	if !a.seen[m.ID] {
		a.seen[m.ID] = true
		if len(a.sources) < MaxSources {
			a.sources = append(a.sources, sourceOf(m, ref.Range))
		}
	}
}

func (a *acc) item() Item {
	ts := make([]string, 0, len(a.terms))
	for t := range a.terms {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return Item{Score: a.score, Terms: ts, SourceCount: len(a.seen), Sources: a.sources}
}

// add folds one matched ref; refs come best first, so the first ref of an
// item names it.
func (g *grouper) add(ref memory.SemanticRef, sr query.ScoredRef, m *memory.Memory) {
	g.order++
	switch ref.Kind {
	case memory.KnowledgeEntity:
		if ref.Entity == nil {
			return
		}
		key := memory.NormalizeTerm(ref.Entity.Name)
		a := g.entities[key]
		if a == nil {
			a = &entityAcc{name: ref.Entity.Name}
			g.entities[key] = a
		}
		if a.id == "" {
			a.id = ref.Entity.ID
		}
		for _, t := range ref.Entity.Types {
			if t = memory.NormalizeTerm(t); t != "" && !slices.Contains(a.types, t) && len(a.types) < memory.MaxListFacets {
				a.types = append(a.types, t)
			}
		}
		for _, f := range ref.Entity.Facets {
			if !slices.ContainsFunc(a.facets, func(x memory.Facet) bool { return sameFacet(x, f) }) && len(a.facets) < memory.MaxListFacets {
				a.facets = append(a.facets, f)
			}
		}
		a.add(g.order, sr, ref, m)
	case memory.KnowledgeTopic, memory.KnowledgeTag, memory.KnowledgeSentence:
		key := string(ref.Kind) + "\x00" + memory.NormalizeTerm(ref.Topic)
		a := g.topics[key]
		if a == nil {
			a = &topicAcc{topic: ref.Topic, tag: ref.Kind == memory.KnowledgeTag, sentence: ref.Kind == memory.KnowledgeSentence}
			g.topics[key] = a
		}
		a.add(g.order, sr, ref, m)
	case memory.KnowledgeAction:
		if ref.Action == nil {
			return
		}
		ac := *ref.Action
		key := strings.Join([]string{memory.NormalizeTerm(ac.Subject), memory.NormalizeTerm(strings.Join(ac.Verbs, " ")),
			memory.NormalizeTerm(ac.Object), memory.NormalizeTerm(ac.IndirectObject), ac.Tense, fmt.Sprint(ac.Negated)}, "\x00")
		a := g.actions[key]
		if a == nil {
			ac.Params = nil // they vary per mention: the sources show them
			a = &actionAcc{action: ac}
			g.actions[key] = a
		}
		a.add(g.order, sr, ref, m)
	}
}

func sameFacet(a, b memory.Facet) bool {
	return memory.NormalizeTerm(a.Name) == memory.NormalizeTerm(b.Name) && memory.NormalizeTerm(a.String()) == memory.NormalizeTerm(b.String())
}

// best orders items by score, then by their best ref's order, and keeps
// limit of them.
func best[T any](m map[string]*T, a func(*T) *acc, limit int) []*T {
	out := make([]*T, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	slices.SortFunc(out, func(x, y *T) int {
		ax, ay := a(x), a(y)
		if c := cmp.Compare(ay.score, ax.score); c != 0 {
			return c
		}
		return cmp.Compare(ax.first, ay.first)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (g *grouper) results() ([]EntityResult, []TopicResult, []ActionResult) {
	es := []EntityResult{}
	for _, a := range best(g.entities, func(a *entityAcc) *acc { return &a.acc }, g.limit) {
		types := a.types
		if types == nil {
			types = []string{}
		}
		es = append(es, EntityResult{ID: a.id, Name: a.name, Types: types, Facets: a.facets, Item: a.item()})
	}
	ts := []TopicResult{}
	for _, a := range best(g.topics, func(a *topicAcc) *acc { return &a.acc }, g.limit) {
		ts = append(ts, TopicResult{Topic: a.topic, Tag: a.tag, Sentence: a.sentence, Item: a.item()})
	}
	as := []ActionResult{}
	for _, a := range best(g.actions, func(a *actionAcc) *acc { return &a.acc }, g.limit) {
		as = append(as, ActionResult{Action: a.action, Item: a.item()})
	}
	return es, ts, as
}

// sourceOf presents m as the source of a ref found in rg of its text.
func sourceOf(m *memory.Memory, rg memory.TextRange) Source {
	return Source{MemoryID: m.ID, Type: m.Type, Snippet: Snippet(m.Content.Text, rg), Range: rg, RoomID: m.RoomID,
		SessionID: m.SessionID, EntityID: m.EntityID, AgentID: m.AgentID, CreatedAt: m.CreatedAt}
}

// Snippet is the part of text a ref was found in: the sentence around
// the range (from the end of the previous sentence, or the start of the
// text, to the end of the range's sentence), at most MaxSnippetBytes, with
// "…" where it is cut; the start of the text for a zero or invalid range.
// It is always valid UTF-8 when text is.
func Snippet(text string, rg memory.TextRange) string {
	start, end := 0, len(text)
	if rg != (memory.TextRange{}) && rg.Start >= 0 && rg.End <= len(text) && rg.Start < rg.End {
		start, end = rg.Start, rg.End
		for start > 0 && rg.End-start < MaxSnippetBytes/2 && !sentenceEnd(text, start-1) {
			start--
		}
		for end < len(text) && end-start < MaxSnippetBytes && !sentenceEnd(text, end-1) {
			end++
		}
		if start > 0 && !sentenceEnd(text, start-1) { // cut inside a sentence: start at a word
			for start < rg.Start && !isSpace(text[start-1]) {
				start++
			}
		}
	}
	if end-start > MaxSnippetBytes {
		end = start + MaxSnippetBytes
	}
	for start < end && !utf8.RuneStart(text[start]) {
		start++
	}
	for end < len(text) && end > start && !utf8.RuneStart(text[end]) {
		end--
	}
	s := strings.TrimSpace(text[start:end])
	if s == "" {
		return s
	}
	if start > 0 && !sentenceEnd(text, start-1) {
		s = "…" + s
	}
	if end < len(text) && !sentenceEnd(text, end-1) {
		s += "…"
	}
	return s
}

// sentenceEnd reports whether text[i] ends a sentence: a line break, or
// ., ! or ? before a space or the end of the text.
func sentenceEnd(text string, i int) bool {
	switch text[i] {
	case '\n':
		return true
	case '.', '!', '?':
		return i+1 == len(text) || isSpace(text[i+1])
	}
	return false
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// ListRequest asks for a page of entities or topics.
type ListRequest struct {
	// Kind is memory.KnowledgeEntity or memory.KnowledgeTopic (tags and
	// actions are listed too). Topics are listed with the turns' topic
	// sentences beside them (Kind memory.KnowledgeSentence on the item),
	// unless Name asks for one topic.
	Kind memory.KnowledgeKind
	// Filter narrows to the knowledge of some memories (room, session,
	// agent, time...); the org and viewer come from the caller.
	Filter memory.Filter
	// Type keeps the entities of that type (normalized); entities only.
	Type string
	// Prefix keeps the names that start with it (normalized).
	Prefix string
	// Name keeps the one item of that name (normalized); it excludes
	// Prefix and Cursor.
	Name   string
	Cursor string
	// Limit is the most items of the page (default
	// memory.DefaultKnowledgePage, at most memory.MaxKnowledgePage).
	Limit int
}

// List returns a page of the knowledge c can see, in name order, with
// counts (refs, memories, first and last mention). Next continues it; a
// page filtered by type may hold fewer than Limit items and still have a
// Next, since it reads at most a bounded number of names. Errors:
// EINVALID naming the parameter (kind, type, prefix, name, cursor, limit,
// the filter's); EFORBIDDEN for another agent's scope; EUNAVAILABLE.
func (e *Explorer) List(ctx context.Context, c memory.Caller, r ListRequest) (memory.KnowledgePage, error) {
	if err := c.Valid(); err != nil {
		return memory.KnowledgePage{}, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	if err := memory.ValidKnowledgeKind(r.Kind); err != nil {
		return memory.KnowledgePage{}, err
	}
	typ, err := normalizedParam("type", r.Type)
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	if typ != "" && r.Kind != memory.KnowledgeEntity {
		return memory.KnowledgePage{}, memory.Errorf(memory.EINVALID, "type: only entities have types")
	}
	prefix, err := normalizedParam("prefix", r.Prefix)
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	name, err := normalizedParam("name", r.Name)
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	if name != "" && (prefix != "" || r.Cursor != "") {
		return memory.KnowledgePage{}, memory.Errorf(memory.EINVALID, "name: excludes prefix and cursor")
	}
	limit, err := memory.PageLimit(r.Limit)
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	q := memory.KnowledgeListQuery{Filter: f, Kind: r.Kind, Prefix: prefix, Cursor: r.Cursor, Limit: limit}
	switch {
	case name != "":
		q.Prefix, q.Limit = name, 1
	case typ != "": // read larger pages of the port, most of whose items the type drops
		q.Limit = min(memory.MaxKnowledgePage, max(4*limit, memory.DefaultKnowledgePage))
	}
	if typ == "" && name == "" && r.Kind == memory.KnowledgeTopic {
		return e.listTopics(ctx, q)
	}
	if typ == "" && name == "" {
		p, err := e.Index.ListKnowledge(ctx, q)
		if err != nil {
			return p, listErr(err)
		}
		if p.Items == nil {
			p.Items = []memory.KnowledgeItem{}
		}
		return p, nil
	}
	// Filter the port's pages: by type, or to the exact name.
	out := memory.KnowledgePage{Items: []memory.KnowledgeItem{}}
	for scanned := 0; ; {
		p, err := e.Index.ListKnowledge(ctx, q)
		if err != nil {
			return memory.KnowledgePage{}, listErr(err)
		}
		for i, it := range p.Items {
			scanned++
			if name != "" {
				if it.Name == name {
					out.Items = append(out.Items, it)
				}
				return out, nil // the exact name sorts first among its prefix
			}
			if slices.Contains(it.Types, typ) {
				out.Items = append(out.Items, it)
			}
			if len(out.Items) == limit || scanned >= maxListScan {
				if i < len(p.Items)-1 || p.Next != "" {
					out.Next = memory.EncodeKnowledgeCursor(it.Name)
				}
				return out, nil
			}
		}
		if p.Next == "" {
			return out, nil
		}
		q.Cursor = p.Next
	}
}

func listErr(err error) error {
	if memory.ErrorCode(err) == memory.EINVALID {
		return err
	}
	return fmt.Errorf("knowledge: list: %w", err)
}

// normalizedParam normalizes a term parameter: NormalizeTerm, and at most
// memory.MaxTermBytes of valid UTF-8 without control characters.
func normalizedParam(field, s string) (string, error) {
	if s == "" {
		return "", nil
	}
	if len(s) > memory.MaxTermBytes {
		return "", memory.Errorf(memory.EINVALID, "%s: longer than %d bytes", field, memory.MaxTermBytes)
	}
	n := memory.NormalizeTerm(s)
	if n != "" && !memory.IndexableTerm(n) {
		return "", memory.Errorf(memory.EINVALID, "%s: must be valid UTF-8 without control characters", field)
	}
	if n == "" && !utf8.ValidString(s) {
		return "", memory.Errorf(memory.EINVALID, "%s: not valid UTF-8", field)
	}
	return n, nil
}

// TermHint is a completion of a prefix: a term of the vocabulary, how many
// refs the caller can see are indexed under it, and, when asked, what it
// mostly is: the kind of knowledge (entity, action, topic, tag) and the
// role (name, type, verb, topic, value...) of its newest postings.
type TermHint struct {
	Term  string               `json:"term"`
	Count int                  `json:"count"`
	Kind  memory.KnowledgeKind `json:"kind,omitempty"`
	Role  string               `json:"role,omitempty"`
}

// roleRank breaks ties between the roles of a term: what names a thing
// before what describes or accompanies it.
var roleRank = map[string]int{memory.RoleName: 1, memory.RoleType: 2, memory.RoleVerb: 3, memory.RoleTopic: 4,
	memory.RoleTag: 5, memory.RoleSubject: 6, memory.RoleObject: 7, memory.RoleFacetName: 8, memory.RoleValue: 9,
	memory.RoleParam: 10}

func rank(role string) int {
	if r, ok := roleRank[role]; ok {
		return r
	}
	return len(roleRank) + 1
}

// TermsRequest asks for completions of a prefix.
type TermsRequest struct {
	// Prefix is normalized (memory.NormalizeTerm) but keeps a trailing
	// space, so that "new " completes to "new york" and not "newt".
	Prefix string
	// Filter narrows the memories counted: agentId and includeArchived
	// keep the lookup on the vocabulary counters (one read); any other
	// field counts postings, which costs more.
	Filter memory.Filter
	// Limit is the most terms (default memory.DefaultTermCompletion, at
	// most memory.MaxTermPrefixResult).
	Limit int
	// Kinds also tells each term's kind and role, with one more lookup.
	Kinds bool
}

// Terms completes a prefix over the vocabulary c can see, most frequent
// first: one TermIndex.Terms call, plus one LookupTerms of the completed
// terms when r.Kinds. Errors: EINVALID (prefix, limit, the filter's);
// EFORBIDDEN for another agent's scope; EUNAVAILABLE.
func (e *Explorer) Terms(ctx context.Context, c memory.Caller, r TermsRequest) ([]TermHint, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	f, err := c.Bind(r.Filter)
	if err != nil {
		return nil, err
	}
	if len(r.Prefix) > memory.MaxTermBytes {
		return nil, memory.Errorf(memory.EINVALID, "prefix: longer than %d bytes", memory.MaxTermBytes)
	}
	prefix := memory.NormalizeTerm(r.Prefix)
	if prefix != "" && strings.HasSuffix(r.Prefix, " ") {
		prefix += " "
	}
	if err := memory.ValidPrefix(prefix); err != nil {
		return nil, err
	}
	if prefix == "" && r.Prefix != "" && !utf8.ValidString(r.Prefix) {
		return nil, memory.Errorf(memory.EINVALID, "prefix: not valid UTF-8")
	}
	limit, err := memory.TermsLimit(r.Limit)
	if err != nil {
		return nil, err
	}
	ts, err := e.Index.Terms(ctx, f, prefix, limit)
	if err != nil {
		if memory.ErrorCode(err) == memory.EINVALID {
			return nil, err
		}
		return nil, fmt.Errorf("knowledge: terms: %w", err)
	}
	out := make([]TermHint, len(ts))
	for i, t := range ts {
		out[i] = TermHint{Term: t.Term, Count: t.Count}
	}
	if !r.Kinds || len(ts) == 0 {
		return out, nil
	}
	terms := make([]string, len(ts))
	for i, t := range ts {
		terms[i] = t.Term
	}
	ps, err := e.Index.LookupTerms(ctx, memory.TermLookup{Filter: f, Terms: terms, Limit: MaxTermKindPostings})
	if err != nil {
		return nil, fmt.Errorf("knowledge: terms: kinds: %w", err)
	}
	type kr struct {
		kind memory.KnowledgeKind
		role string
	}
	votes := map[string]map[kr]int{}
	for _, p := range ps {
		if votes[p.Term] == nil {
			votes[p.Term] = map[kr]int{}
		}
		votes[p.Term][kr{p.Kind, p.Role}]++
	}
	for i := range out {
		var bestK kr
		n := 0
		for k, v := range votes[out[i].Term] {
			if v > n || v == n && (rank(k.role) < rank(bestK.role) || rank(k.role) == rank(bestK.role) && k.kind < bestK.kind) {
				bestK, n = k, v
			}
		}
		out[i].Kind, out[i].Role = bestK.kind, bestK.role
	}
	return out, nil
}

// MaxPendingCount bounds the count of Pending.
const MaxPendingCount = 10_000

// PendingStatus is how many of an org's memories wait for their knowledge
// (GET /v1/knowledge/status): a bulk write left to the background worker,
// a language model's extraction still to come, or a failed extraction to
// retry. Until then they are stored and searchable by every list but the
// knowledge list.
type PendingStatus struct {
	// Pending is how many memories wait, counted up to MaxPendingCount.
	Pending int `json:"pending"`
	// More is true when more than MaxPendingCount wait.
	More bool `json:"more"`
}

// Pending counts c's org's memories whose knowledge extraction is
// pending. The count is over the whole org, so only an org-level key (no
// agent, no end user) reads it. Errors: EFORBIDDEN; ENOTFOUND when the
// store keeps no extraction status; EUNAVAILABLE.
func (e *Explorer) Pending(ctx context.Context, c memory.Caller) (PendingStatus, error) {
	if err := c.Valid(); err != nil {
		return PendingStatus{}, err
	}
	if c.AgentID != "" || c.Binding != nil {
		return PendingStatus{}, memory.Errorf(memory.EFORBIDDEN, "knowledge status: counts the whole org's memories, so it needs an org-level key")
	}
	if e.Status == nil {
		return PendingStatus{}, memory.Errorf(memory.ENOTFOUND, "knowledge status: this store keeps no extraction status")
	}
	var st PendingStatus
	after := ""
	for {
		want := min(memory.MaxKnowledgePage, MaxPendingCount+1-st.Pending) // one past the bound tells More
		page, err := e.Status.PendingKnowledge(ctx, c.OrgID, after, want)
		if err != nil {
			return PendingStatus{}, err
		}
		st.Pending += len(page)
		if len(page) < want || st.Pending > MaxPendingCount {
			break
		}
		after = page[len(page)-1].MemoryID
	}
	if st.Pending > MaxPendingCount {
		st.Pending, st.More = MaxPendingCount, true
	}
	return st, nil
}
