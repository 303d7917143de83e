package service

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
)

// ContextRequest asks for a prompt-ready context.
type ContextRequest struct {
	Query string `json:"query"`
	// RoomID is the conversation served: its recent turns lead the
	// context. With UserID and WorldID it is whom every section acts for
	// (see Act): the transport makes the caller act for Acting() first.
	RoomID       string `json:"roomId"`
	UserID       string `json:"userId,omitempty"`
	WorldID      string `json:"worldId,omitempty"`
	BudgetTokens int    `json:"budgetTokens"`
	// WorkstreamID names a memory block to carry whole after the core
	// memories (a BlockSource's; EINVALID without one).
	WorkstreamID string `json:"workstreamId,omitempty"`
	// MinScore is the relevance floor of the relevant-knowledge section
	// (SearchRequest.MinScore); nil means the embedder's calibrated floor
	// (Service.RelevanceFloor), 0 keeps every result.
	MinScore *float64 `json:"minScore,omitempty"`
	// Providers names the sections and their order (Provider*); empty
	// is the default composition.
	Providers []string `json:"providers,omitempty"`
	// ReserveTokens of the budget are left to the caller's own system
	// prompt and current message: the sections share the rest.
	ReserveTokens int `json:"reserveTokens,omitempty"`
	// MessageID names the message the context is composed for: the
	// composed context is cached under it (with the rest of the request
	// and whom the caller acts for) until a write in the org.
	MessageID string `json:"messageId,omitempty"`
}

// Acting is whom r serves.
func (r ContextRequest) Acting() memory.Acting {
	return memory.Acting{UserID: r.UserID, RoomID: r.RoomID, WorldID: r.WorldID}
}

// ContextResult is the assembled context and how the budget was spent.
type ContextResult struct {
	Context      string `json:"context"`
	BudgetTokens int    `json:"budgetTokens"`
	UsedTokens   int    `json:"usedTokens"`
	// ReserveTokens is the request's: BudgetTokens less it is what the
	// sections could spend.
	ReserveTokens int              `json:"reserveTokens,omitempty"`
	Sections      []ContextSection `json:"sections"`
	// Cached is true when the context was composed for an identical
	// earlier request (same messageId) and nothing was written since.
	Cached bool `json:"cached,omitempty"`
}

// ContextSection is one part of the context with its share of the budget.
type ContextSection struct {
	Name string `json:"name"`
	// Provider is the provider that filled the section (Provider*).
	Provider string        `json:"provider"`
	Tokens   int           `json:"tokens"`
	Items    []ContextItem `json:"items"`
}

// ContextItem is one memory placed in the context, or, in the structured
// section, one entity or topic (Kind and Name set, ID empty).
type ContextItem struct {
	ID     string               `json:"id,omitempty"`
	Type   memory.Type          `json:"type,omitempty"`
	Kind   memory.KnowledgeKind `json:"kind,omitempty"`
	Name   string               `json:"name,omitempty"`
	Tokens int                  `json:"tokens"`
	Score  float64              `json:"score,omitempty"`
}

// KnowledgeContext supplies the structured section of a prompt context,
// after KnowPro's answer context: the entities and topics a query is about
// and the memories they point to. The knowledge package implements it;
// the service only renders and budgets what it returns.
type KnowledgeContext interface {
	// AnswerContext returns what the knowledge of the memories q.Filter
	// selects says about q.Text, most relevant first. q is shared with
	// the context's search, so the speakers it names are read once.
	// Errors: the term index's (EUNAVAILABLE...).
	AnswerContext(ctx context.Context, q *retrieval.Query) (*AnswerContext, error)
}

// AnswerContext is the knowledge a query is about: entities and topics
// (with their types, facets and counts among the memories the filter
// selects) and the ids of the memories they point to, each list most
// relevant first.
type AnswerContext struct {
	Entities  []memory.KnowledgeItem
	Topics    []memory.KnowledgeItem
	MemoryIDs []string
}

// BlockSource supplies the memory block section of a prompt context: the
// lines of a workstream's block as c sees it, and its name. The
// workstream package implements it. Errors: ENOTFOUND (absent or not
// visible to c), EINVALID.
type BlockSource interface {
	BlockSection(ctx context.Context, c memory.Caller, workstreamID string) (name string, lines []string, err error)
}

// WithBlockSource lets BuildContext carry a workstream's memory block
// when a request names one (ContextRequest.WorkstreamID).
func WithBlockSource(b BlockSource) Option { return func(s *Service) { s.blocks = b } }

// blockSection fills the memory block section of r, within limit tokens:
// its entries, newest kept when they do not all fit, rendered oldest
// first.
func (s *Service) blockSection(ctx context.Context, c memory.Caller, r ContextRequest, limit int) (*section, error) {
	sec := newSection("block", "## Memory block")
	if r.WorkstreamID == "" {
		return sec, nil
	}
	if s.blocks == nil {
		return nil, memory.Errorf(memory.EINVALID, "workstreamId: this server keeps no workstreams")
	}
	name, lines, err := s.blocks.BlockSection(ctx, c, r.WorkstreamID)
	if err != nil {
		return nil, err
	}
	sec.header = "## Memory block (" + oneLine(name) + ")"
	var picked []string
	var items []ContextItem
	for i := len(lines) - 1; i >= 0; i-- { // newest first; stop at the first that does not fit
		cost := memory.EstimateTokens(lines[i]) + 1
		if len(picked) == 0 {
			cost += memory.EstimateTokens(sec.header) + 1
		}
		if sec.Tokens+cost > limit {
			break
		}
		sec.Tokens += cost
		picked = append(picked, lines[i])
		items = append(items, ContextItem{Kind: "block", Name: r.WorkstreamID, Tokens: cost})
	}
	for i := len(picked) - 1; i >= 0; i-- {
		sec.lines = append(sec.lines, picked[i])
		sec.Items = append(sec.Items, items[i])
	}
	return sec, nil
}

// WithKnowledgeContext adds the structured section to BuildContext.
func WithKnowledgeContext(k KnowledgeContext) Option {
	return func(s *Service) { s.knowledgeContext = k }
}

// Budget shares: the core section may take up to coreShare of the budget,
// recent messages up to recentShare of it plus what core left; retrieved
// knowledge gets the rest. With a KnowledgeContext, the structured section
// takes up to structuredShare of what core and recent left (its entities
// and topics at most half of that, the messages they point to the rest),
// and retrieved knowledge what remains: the two views of the query share
// the room, neither starves the other.
const (
	structuredShare    = 0.5
	maxStructuredItems = 12

	DefaultBudgetTokens = 2000
	coreShare           = 0.20
	blockShare          = 0.20 // of the budget, for a memory block; what it leaves passes on
	recentShare         = 0.35
	maxRecent           = 100
	maxCore             = 200
	maxRetrieved        = 50
)

// section accumulates rendered lines within a token cap.
type section struct {
	ContextSection
	header string
	lines  []string
}

func newSection(name, header string) *section {
	return &section{ContextSection: ContextSection{Name: name, Items: []ContextItem{}}, header: header}
}

// add places line for m if it fits in limit tokens (counting the header on
// the first line) and reports whether it did.
func (s *section) add(m *memory.Memory, line string, score float64, limit int) bool {
	cost := memory.EstimateTokens(line) + 1 // +1 for the line break
	if len(s.lines) == 0 {
		cost += memory.EstimateTokens(s.header) + 1
	}
	if s.Tokens+cost > limit {
		return false
	}
	s.Tokens += cost
	s.lines = append(s.lines, line)
	s.Items = append(s.Items, ContextItem{ID: m.ID, Type: m.Type, Tokens: cost, Score: score})
	return true
}

// addItem places a line about a knowledge item if it fits in limit tokens.
func (s *section) addItem(kind memory.KnowledgeKind, name, line string, limit int) bool {
	cost := memory.EstimateTokens(line) + 1
	if len(s.lines) == 0 {
		cost += memory.EstimateTokens(s.header) + 1
	}
	if s.Tokens+cost > limit {
		return false
	}
	s.Tokens += cost
	s.lines = append(s.lines, line)
	s.Items = append(s.Items, ContextItem{Kind: kind, Name: name, Tokens: cost})
	return true
}

func (s *section) text() string {
	if len(s.lines) == 0 {
		return ""
	}
	return s.header + "\n" + strings.Join(s.lines, "\n")
}

// BuildContext fills a token budget for c with the sections of the
// request's providers, in its order (ContextRequest.Providers), or by
// default: core memories (durability core, most important first), the
// memory block when the request names one, the most recent messages of
// the room in chronological order, then knowledge and facts retrieved for
// the query by hybrid search, above the relevance floor (r.MinScore). ReserveTokens of the budget are left to the
// caller's own prompt. Sections skip items that do not fit; unused share
// passes on. A request with a MessageID is answered from the cache of
// composed contexts while nothing was written in the org (WithContextCache).
func (s *Service) BuildContext(ctx context.Context, c memory.Caller, r ContextRequest) (*ContextResult, error) {
	if err := c.Valid(); err != nil {
		return nil, err
	}
	if r.BudgetTokens == 0 {
		r.BudgetTokens = DefaultBudgetTokens
	}
	if r.BudgetTokens < 1 || r.BudgetTokens > memory.MaxBudgetTokens {
		return nil, memory.Errorf(memory.EINVALID, "budgetTokens: must be between 1 and %d", memory.MaxBudgetTokens)
	}
	if r.ReserveTokens < 0 || r.ReserveTokens >= r.BudgetTokens {
		return nil, memory.Errorf(memory.EINVALID, "reserveTokens: must be at least 0 and less than budgetTokens (%d)", r.BudgetTokens)
	}
	if err := memory.ValidID("roomId", r.RoomID); err != nil {
		return nil, err
	}
	if err := memory.ValidID("messageId", r.MessageID); err != nil {
		return nil, err
	}
	if len(r.Query) > memory.MaxQueryBytes {
		return nil, memory.Errorf(memory.EINVALID, "query: %d bytes exceeds the limit of %d", len(r.Query), memory.MaxQueryBytes)
	}
	if strings.TrimSpace(r.Query) == "" && r.RoomID == "" && r.WorkstreamID == "" {
		return nil, memory.Errorf(memory.EINVALID, "query or roomId (or workstreamId): at least one is required")
	}
	if r.MinScore != nil {
		if err := memory.ValidUnit("minScore", *r.MinScore); err != nil {
			return nil, err
		}
	}
	if err := checkProviders(r.Providers); err != nil {
		return nil, err
	}
	key, gen, err := s.contexts.key(c, r)
	if err != nil {
		return nil, err
	}
	if hit := s.contexts.get(key, gen, s.now()); hit != nil {
		return hit, nil
	}
	names := r.Providers
	if len(names) == 0 {
		names = s.defaultProviders(r)
	}
	st := &composition{c: c, r: r, budget: r.BudgetTokens - r.ReserveTokens, used: map[string]bool{}}
	secs, err := s.compose(ctx, st, names)
	if err != nil {
		return nil, err
	}

	res := &ContextResult{BudgetTokens: r.BudgetTokens, ReserveTokens: r.ReserveTokens}
	var parts []string
	for _, sec := range secs {
		res.Sections = append(res.Sections, sec.ContextSection)
		res.UsedTokens += sec.Tokens
		if t := sec.text(); t != "" {
			parts = append(parts, t)
		}
	}
	res.Context = strings.Join(parts, "\n\n")
	// Only what was placed counts as accessed, not every candidate.
	var ids []string
	for _, sec := range res.Sections {
		for _, it := range sec.Items {
			if it.ID != "" {
				ids = append(ids, it.ID)
			}
		}
	}
	s.touchIDs(ctx, c, ids)
	s.contexts.put(c.OrgID, key, gen, res, s.now())
	return res, nil
}

// coreMemories returns the caller's core memories, most important first.
func (s *Service) coreMemories(ctx context.Context, c memory.Caller) ([]*memory.Memory, error) {
	f, err := c.Bind(memory.Filter{Durability: memory.DurabilityCore})
	if err != nil {
		return nil, err
	}
	page, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: maxCore})
	if err != nil {
		return nil, err
	}
	out := page.Memories
	sort.SliceStable(out, func(i, j int) bool { return out[i].Importance > out[j].Importance })
	return out, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func messageLine(m *memory.Memory) string {
	who := m.EntityID
	if who == "" {
		who = "unknown"
	}
	at := time.UnixMilli(m.CreatedAt).UTC().Format("2006-01-02 15:04")
	return fmt.Sprintf("[%s] %s: %s", at, who, oneLine(m.Content.SearchText()))
}

func knowledgeLine(m *memory.Memory) string {
	label := string(m.Type)
	if m.Kind != "" {
		label += "/" + string(m.Kind)
	}
	if memory.FactMetaOf(m).Contested {
		return contestedLine(m, label)
	}
	return fmt.Sprintf("- (%s) %s", label, oneLine(m.Content.SearchText()))
}

// contestedLine is the line of a contested fact: marked, and dated, so
// that the reader weighs it against the facts it contradicts, placed
// right after it.
func contestedLine(m *memory.Memory, label string) string {
	at := time.UnixMilli(m.CreatedAt).UTC().Format("2006-01-02")
	return fmt.Sprintf("- [contested] (%s, %s) %s", label, at, oneLine(m.Content.SearchText()))
}

// addContested places, right after m, the facts m is contested with (its
// consolidation mark, memory.FactMeta.ContestedWith) that c sees and that
// are live, each marked and dated as m is, within limit tokens.
func (s *Service) addContested(ctx context.Context, c memory.Caller, sec *section, m *memory.Memory, limit int, used map[string]bool) error {
	var ids []string
	for _, id := range memory.FactMetaOf(m).ContestedWith {
		if !used[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	got, err := s.store.GetMany(ctx, c.OrgID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		o := got[id]
		if o == nil || !c.CanSeeMemory(o) || o.Archived || o.Pending {
			continue
		}
		label := string(o.Type)
		if o.Kind != "" {
			label += "/" + string(o.Kind)
		}
		if sec.add(o, contestedLine(o, label), 0, limit) {
			used[id] = true
		}
	}
	return nil
}

// structuredSection fills sec, within limit tokens, from the
// KnowledgeContext: entities then topics (at most half of limit), then the
// memories they point to that the caller can see and that no earlier
// section holds.
func (s *Service) structuredSection(ctx context.Context, c memory.Caller, q *retrieval.Query, sec *section, limit int, used map[string]bool) error {
	ac, err := s.knowledgeContext.AnswerContext(ctx, q)
	if err != nil {
		return fmt.Errorf("context: knowledge: %w", err)
	}
	items := 0
	for _, list := range [][]memory.KnowledgeItem{ac.Entities, ac.Topics} {
		for _, it := range list {
			if items >= maxStructuredItems {
				break
			}
			if sec.addItem(it.Kind, it.Name, knowledgeItemLine(it), limit/2) {
				items++
			}
		}
	}
	ids := ac.MemoryIDs
	if len(ids) > maxRetrieved {
		ids = ids[:maxRetrieved]
	}
	var want []string
	for _, id := range ids {
		if !used[id] {
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return nil
	}
	got, err := s.store.GetMany(ctx, c.OrgID, want)
	if err != nil {
		return err
	}
	for _, id := range want {
		m := got[id]
		if m == nil || !q.Filter.Match(m.Attrs()) {
			continue // gone, or not the caller's to see
		}
		line := knowledgeLine(m)
		if m.Type == memory.TypeMessage {
			line = "- " + messageLine(m)
		}
		if sec.add(m, line, 0, limit) {
			used[id] = true
		}
	}
	return nil
}

// knowledgeItemLine renders an entity or topic: its name, types and facets,
// and how often and when it was mentioned.
func knowledgeItemLine(it memory.KnowledgeItem) string {
	var b strings.Builder
	b.WriteString("- ")
	if it.Kind != memory.KnowledgeEntity {
		b.WriteString(string(it.Kind) + ": ")
	}
	b.WriteString(it.Name)
	var attrs []string
	if len(it.Types) > 0 {
		attrs = append(attrs, strings.Join(it.Types, ", "))
	}
	for _, f := range it.Facets {
		attrs = append(attrs, f.Name+": "+f.Value)
	}
	if len(attrs) > 6 {
		attrs = attrs[:6]
	}
	if len(attrs) > 0 {
		b.WriteString(" (" + strings.Join(attrs, "; ") + ")")
	}
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }
	fmt.Fprintf(&b, " - %d mentions in %d memories", it.Refs, it.Memories)
	if it.FirstAt != 0 || it.LastAt != 0 {
		if day(it.FirstAt) == day(it.LastAt) {
			fmt.Fprintf(&b, ", %s", day(it.FirstAt))
		} else {
			fmt.Fprintf(&b, ", %s to %s", day(it.FirstAt), day(it.LastAt))
		}
	}
	return b.String()
}
