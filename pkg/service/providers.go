package service

import (
	"context"
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
)

// The context's providers, by the names a request gives them
// (ContextRequest.Providers). Each fills one section of the context.
const (
	ProviderCore      = "core"      // pre-seeded core memories, section "core"
	ProviderBlock     = "block"     // the request's memory block, section "block"
	ProviderRecent    = "recent"    // the room's recent conversation, section "recent"
	ProviderKnowledge = "knowledge" // entities and topics of the query, section "structured"
	ProviderFacts     = "facts"     // memories retrieved for the query, section "knowledge"
	ProviderDocuments = "documents" // document fragments retrieved for the query, section "documents"
	ProviderRelations = "relations" // one hop of relations from what earlier sections placed, section "relations"
)

// ProviderNames are the providers' names, in the default order.
var ProviderNames = []string{ProviderCore, ProviderBlock, ProviderRecent, ProviderKnowledge, ProviderFacts, ProviderDocuments, ProviderRelations}

// maxProviders bounds a request's list of providers.
const maxProviders = 16

// Shares of the budget of the providers that only a request names.
const (
	documentShare = 0.30
	relationShare = 0.15
)

// contextProvider fills one section of a context. Providers run in the
// request's order; each reads through the caller (c.Bind, CanSeeMemory)
// and places only what earlier sections did not (composition.used).
type contextProvider interface {
	// fill returns the provider's section within limit tokens.
	fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error)
	// limit is the most the provider may take of st's budget before
	// what later providers are owed is held back.
	limit(st *composition) int
	// share is what a later position holds back for it from the
	// providers that take the rest (0: it takes the rest itself).
	share(budget int) int
}

// providers are the context's providers by name: one line each.
var providers = map[string]contextProvider{
	ProviderCore:      coreProvider{},
	ProviderBlock:     blockProvider{},
	ProviderRecent:    recentProvider{},
	ProviderKnowledge: knowledgeProvider{},
	ProviderFacts:     factsProvider{},
	ProviderDocuments: documentsProvider{},
	ProviderRelations: relationsProvider{},
}

// defaultProviders is the composition of a request that names none: core
// memories, the block when the request names a workstream, the recent
// conversation, the structured section when the service has a
// KnowledgeContext, and the retrieved facts.
func (s *Service) defaultProviders(r ContextRequest) []string {
	names := []string{ProviderCore}
	if r.WorkstreamID != "" {
		names = append(names, ProviderBlock)
	}
	names = append(names, ProviderRecent)
	if s.knowledgeContext != nil {
		names = append(names, ProviderKnowledge)
	}
	return append(names, ProviderFacts)
}

// checkProviders validates a request's providers: known names, each once.
func checkProviders(names []string) error {
	if len(names) > maxProviders {
		return memory.Errorf(memory.EINVALID, "providers: at most %d", maxProviders)
	}
	seen := map[string]bool{}
	for i, n := range names {
		if providers[n] == nil {
			return memory.Errorf(memory.EINVALID, "providers[%d]: unknown provider %q (core, block, recent, knowledge, facts, documents, relations)", i, n)
		}
		if seen[n] {
			return memory.Errorf(memory.EINVALID, "providers[%d]: %q named twice", i, n)
		}
		seen[n] = true
	}
	return nil
}

// composition is the state of one context being composed.
type composition struct {
	c      memory.Caller
	r      ContextRequest
	budget int // what the sections may spend: the budget less the reserve
	spent  int
	used   map[string]bool // ids of the memories placed
	placed []string        // the same, in order of placement
	// coreLeft is what the core section left of its share, which passes
	// on to the recent conversation.
	coreLeft int
	question *retrieval.Query
}

// place records that m was placed.
func (st *composition) place(id string) {
	if !st.used[id] {
		st.used[id] = true
		st.placed = append(st.placed, id)
	}
}

// query is the question, read by the structured section and the searches
// alike (the speakers it names are resolved once).
func (st *composition) query() (*retrieval.Query, error) {
	if st.question == nil {
		all, err := st.c.Bind(memory.Filter{})
		if err != nil {
			return nil, err
		}
		st.question = retrieval.NewQuery(st.r.Query, all, 0, nil)
	}
	return st.question, nil
}

// compose runs the providers named in order and returns their sections.
// Each gets its limit, at most what the budget has left less the shares
// of the fixed-share providers after it.
func (s *Service) compose(ctx context.Context, st *composition, names []string) ([]*section, error) {
	var out []*section
	for i, n := range names {
		p := providers[n]
		owed := 0
		for _, later := range names[i+1:] {
			owed += providers[later].share(st.budget)
		}
		limit := min(p.limit(st), st.budget-st.spent-owed)
		sec, err := p.fill(ctx, s, st, max(limit, 0))
		if err != nil {
			return nil, err
		}
		sec.Provider = n
		st.spent += sec.Tokens
		out = append(out, sec)
	}
	return out, nil
}

func shareOf(f float64, budget int) int { return int(f * float64(budget)) }

type coreProvider struct{}

func (coreProvider) limit(st *composition) int { return shareOf(coreShare, st.budget) }
func (coreProvider) share(b int) int           { return shareOf(coreShare, b) }

// fill places the core memories c sees, most important first.
func (coreProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("core", "## Core memories")
	cores, err := s.coreMemories(ctx, st.c)
	if err != nil {
		return nil, err
	}
	for _, m := range cores {
		if sec.add(m, "- "+oneLine(m.Content.Text), m.Importance, limit) {
			st.place(m.ID)
		}
	}
	st.coreLeft = shareOf(coreShare, st.budget) - sec.Tokens
	return sec, nil
}

type blockProvider struct{}

func (blockProvider) limit(st *composition) int { return shareOf(blockShare, st.budget) }
func (blockProvider) share(b int) int           { return shareOf(blockShare, b) }

func (blockProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	return s.blockSection(ctx, st.c, st.r, limit)
}

type recentProvider struct{}

func (recentProvider) limit(st *composition) int {
	return shareOf(recentShare, st.budget) + st.coreLeft
}
func (recentProvider) share(b int) int { return shareOf(recentShare, b) }

// fill places the room's newest messages that fit, rendered oldest first.
func (recentProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("recent", "## Recent conversation")
	if st.r.RoomID == "" {
		return sec, nil
	}
	f, err := st.c.Bind(memory.Filter{RoomID: st.r.RoomID, Types: []memory.Type{memory.TypeMessage}})
	if err != nil {
		return nil, err
	}
	page, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: maxRecent})
	if err != nil {
		return nil, err
	}
	n := 0
	for _, m := range page.Memories { // newest first; stop at the first that does not fit
		if st.used[m.ID] {
			continue
		}
		if !sec.add(m, messageLine(m), 0, limit) {
			break
		}
		st.place(m.ID)
		n++
	}
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 { // as a conversation reads
		sec.lines[i], sec.lines[j] = sec.lines[j], sec.lines[i]
		sec.Items[i], sec.Items[j] = sec.Items[j], sec.Items[i]
	}
	return sec, nil
}

type knowledgeProvider struct{}

func (knowledgeProvider) limit(st *composition) int {
	return int(structuredShare * float64(st.budget-st.spent))
}
func (knowledgeProvider) share(int) int { return 0 }

// fill places the structured section, when the service has a
// KnowledgeContext and the request a query.
func (knowledgeProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("structured", "## Knowledge (entities, topics, their messages)")
	if s.knowledgeContext == nil || strings.TrimSpace(st.r.Query) == "" {
		return sec, nil
	}
	q, err := st.query()
	if err != nil {
		return nil, err
	}
	placed := len(st.used)
	if err := s.structuredSection(ctx, st.c, q, sec, limit, st.used); err != nil {
		return nil, err
	}
	if len(st.used) != placed { // keep the order of placement
		for _, it := range sec.Items {
			if it.ID != "" {
				st.placed = append(st.placed, it.ID)
			}
		}
	}
	return sec, nil
}

type factsProvider struct{}

func (factsProvider) limit(st *composition) int { return st.budget - st.spent }
func (factsProvider) share(int) int             { return 0 }

// fill places what hybrid search retrieves for the query, each contested
// fact with the facts it is contested with.
func (factsProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("knowledge", "## Relevant knowledge")
	return sec, s.retrieved(ctx, st, sec, memory.Filter{}, limit, true)
}

type documentsProvider struct{}

func (documentsProvider) limit(st *composition) int { return shareOf(documentShare, st.budget) }
func (documentsProvider) share(b int) int           { return shareOf(documentShare, b) }

// fill places the documents and their fragments retrieved for the query.
func (documentsProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("documents", "## Documents")
	f := memory.Filter{Types: []memory.Type{memory.TypeFragment, memory.TypeDocument}}
	return sec, s.retrieved(ctx, st, sec, f, limit, false)
}

// retrieved fills sec, within limit tokens, with the memories that f
// selects and hybrid search finds for the request's query.
func (s *Service) retrieved(ctx context.Context, st *composition, sec *section, f memory.Filter, limit int, contested bool) error {
	if strings.TrimSpace(st.r.Query) == "" {
		return nil
	}
	q, err := st.query()
	if err != nil {
		return err
	}
	found, err := s.search(ctx, st.c, SearchRequest{Query: st.r.Query, K: maxRetrieved, Filter: f, MinScore: st.minScore(s), speakersOf: q})
	if err != nil {
		return err
	}
	for _, h := range found.Results {
		if st.used[h.Memory.ID] {
			continue
		}
		if sec.add(h.Memory, knowledgeLine(h.Memory), h.Score, limit) {
			st.place(h.Memory.ID)
			if !contested {
				continue
			}
			before := len(sec.Items)
			if err := s.addContested(ctx, st.c, sec, h.Memory, limit, st.used); err != nil {
				return err
			}
			for _, it := range sec.Items[before:] {
				st.placed = append(st.placed, it.ID)
			}
		}
	}
	return nil
}

type relationsProvider struct{}

func (relationsProvider) limit(st *composition) int { return shareOf(relationShare, st.budget) }
func (relationsProvider) share(b int) int           { return shareOf(relationShare, b) }

// maxRelated bounds the memories whose relations the relations provider
// reads.
const maxRelated = 20

// fill places, one hop away from the memories earlier sections placed
// (the first maxRelated of them), the related memories c sees that are
// live and not placed yet, each with the relation that brought it.
func (relationsProvider) fill(ctx context.Context, s *Service, st *composition, limit int) (*section, error) {
	sec := newSection("relations", "## Related")
	rs, ok := s.store.(memory.RelationStore)
	if !ok || len(st.placed) == 0 {
		return sec, nil
	}
	type edge struct{ from, typ, to string }
	var edges []edge
	want := map[string]bool{}
	for _, id := range st.placed[:min(len(st.placed), maxRelated)] {
		rels, err := rs.Relations(ctx, st.c.OrgID, id)
		if err != nil {
			return nil, err
		}
		for _, r := range rels {
			other := r.ToID
			if other == id {
				other = r.FromID
			}
			if st.used[other] {
				continue
			}
			edges = append(edges, edge{id, string(r.Type), other})
			want[other] = true
		}
	}
	if len(want) == 0 {
		return sec, nil
	}
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	got, err := s.store.GetMany(ctx, st.c.OrgID, ids)
	if err != nil {
		return nil, err
	}
	for _, e := range edges {
		m := got[e.to]
		if m == nil || st.used[m.ID] || !st.c.CanSeeMemory(m) || m.Archived || m.Pending {
			continue
		}
		line := fmt.Sprintf("- (%s %s) %s", e.typ, e.from, strings.TrimPrefix(knowledgeLine(m), "- "))
		if sec.add(m, line, 0, limit) {
			st.place(m.ID)
		}
	}
	return sec, nil
}

// minScore is the relevance floor of the composition's searches: the
// request's, else the embedder's calibrated floor (Service.RelevanceFloor).
func (st *composition) minScore(s *Service) float64 {
	if st.r.MinScore != nil {
		return *st.r.MinScore
	}
	return s.RelevanceFloor()
}
