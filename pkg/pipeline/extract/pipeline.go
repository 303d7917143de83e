package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Service is what the pipeline uses of the memory service
// (service.Worker is one): facts are compared with the known ones, written,
// related to their sources and to what they replace, and contested facts
// marked, as the job's caller.
type Service interface {
	Similar(ctx context.Context, c memory.Caller, r memory.SimilarRequest) ([]memory.SearchResult, error)
	Create(ctx context.Context, c memory.Caller, in []memory.NewMemory) ([]memory.CreateResult, error)
	Get(ctx context.Context, c memory.Caller, id string) (*memory.Memory, error)
	Relate(ctx context.Context, c memory.Caller, rels []memory.Relation) error
	Archive(ctx context.Context, c memory.Caller, id, reason string) error
	SetImportance(ctx context.Context, c memory.Caller, id string, importance float64, metadata json.RawMessage) error
}

// Pipeline extracts facts from turns and merges them into the store.
type Pipeline struct {
	Service   Service
	Extractor Extractor
	Log       *slog.Logger
	// DuplicateAt is the cosine similarity from which a fact of the same
	// subject, polarity and slot is the same fact (default 0.92);
	// RelatedAt the one from which a fact of the same subject enriches a
	// known one of another slot (default 0.85). Neither lets a fact
	// supersede or contradict another: that takes the same slot.
	DuplicateAt, RelatedAt float64
	// OrgFactsFromAgents lets a fact about the org itself, drawn from an
	// agent-bound conversation, be promoted to the org scope. Off by
	// default: such facts stay in the agent's scope like the rest. An
	// org's settings may override it (ExtractionSettings.OrgFactsFromAgents).
	OrgFactsFromAgents bool
	// DualWriteOrgFacts writes such a fact to the org scope and to the
	// agent's at once, the agent's copy relates_to the org's (Lota's dual
	// writes), when the caller may write to the org scope. Off by
	// default; an org's settings may override it
	// (ExtractionSettings.DualWriteOrgFacts).
	DualWriteOrgFacts bool
	// Settings, when set, gives each job its org's extraction settings
	// (see SettingsStore): the instructions and language steer a
	// Steerable extractor, and facts outside the keep and drop lists are
	// dropped whatever the extractor. Without it every org extracts by the
	// defaults.
	Settings OrgSettings
	// Entities, when set, resolves speakers and subjects to the org's
	// registered entities by their ids, names and aliases: a turn's
	// speaker is given to the extractor by the entity's display name, and
	// a fact about a registered entity has its id as entityId and its
	// display name as subject, so "Bob", "bob" and the alias "Robert" are
	// one subject, compared as one.
	Entities memory.EntityDirectory
}

// jobSettings are the org settings one job runs with.
type jobSettings struct {
	memory.ExtractionSettings
	version  int64
	orgFacts bool                // facts about the org may leave an agent's scope
	dual     bool                // and are written to the agent's scope too
	names    *memory.EntityNames // the org's entities (Pipeline.Entities)
}

// Outcome is what happened to one extracted fact.
type Outcome struct {
	Fact     Fact     `json:"fact"`
	Decision Decision `json:"decision"`
	ID       string   `json:"id,omitempty"`     // the fact memory written (or the one it duplicates)
	Target   string   `json:"target,omitempty"` // the existing fact it duplicates, enriches, supersedes or contradicts
	// Why is the decision as recorded in the fact's metadata: rule,
	// scores, subject and slot.
	Why memory.FactDecision `json:"why"`
	// AgentID is the scope the fact was written to ("" for the org scope).
	AgentID string `json:"agentId,omitempty"`
	// CopyID is the agent's copy of a fact about the org written to the
	// org scope, under dual writes (Pipeline.DualWriteOrgFacts).
	CopyID string `json:"copyId,omitempty"`
}

func (p *Pipeline) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// Process extracts facts from turns spoken in caller c's org and merges
// each into what is known in the scope it belongs to (see scope).
// Transient turns (greetings, thanks, acknowledgements, questions and
// fillers alone: see Transient) are not given to the extractor, except a
// question answered by the next turn (see Useful); a job of nothing else
// extracts nothing. The org's settings (Settings), read before
// extracting, steer the extractor and filter its facts. Processing the
// same turns again finds the same facts again and writes nothing new.
func (p *Pipeline) Process(ctx context.Context, c memory.Caller, turns []Turn) ([]Outcome, error) {
	useful := Useful(turns)
	if len(useful) == 0 {
		return nil, nil
	}
	js := jobSettings{orgFacts: p.OrgFactsFromAgents, dual: p.DualWriteOrgFacts}
	if p.Settings != nil {
		var err error
		// Read before extracting: an org that drops a category must
		// never see it stored because its settings could not be read.
		if js.ExtractionSettings, js.version, err = p.Settings.ExtractionSettings(ctx, c.OrgID); err != nil {
			return nil, err
		}
		if js.OrgFactsFromAgents != nil {
			js.orgFacts = *js.OrgFactsFromAgents
		}
		if js.DualWriteOrgFacts != nil {
			js.dual = *js.DualWriteOrgFacts
		}
	}
	if p.Entities != nil {
		var err error
		if js.names, err = p.Entities.EntityNames(ctx, c.OrgID); err != nil {
			return nil, fmt.Errorf("extract: entity names: %w", err)
		}
		useful = resolveSpeakers(js.names, useful)
	}
	ex := p.Extractor
	if st, ok := ex.(Steerable); ok && (js.Instructions != "" || js.Language != "") {
		ex = st.Steer(js.ExtractionSettings)
	}
	groups := readerGroups(useful)
	var out []Outcome
	for _, g := range groups {
		facts, err := ex.Extract(ctx, g.turns)
		if err != nil {
			return out, err
		}
		for _, f := range p.keep(ctx, c, facts, js) {
			if len(groups) > 1 && !slices.ContainsFunc(f.Sources, func(id string) bool { return g.own[id] }) {
				continue // another audience's group reads its own turns
			}
			o, err := p.merge(ctx, c, g.turns, f, js)
			if memory.ErrorCode(err) == memory.EINVALID {
				// A fact the service refuses (a field out of bounds) is the
				// extractor's fault, not the job's: the others are kept.
				p.log().WarnContext(ctx, "extracted fact rejected", "org", c.OrgID, "extractor", p.Extractor.Name(), "err", err)
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// readerGroup is what the extractor reads for one audience of a job: the
// turns of that audience (own) and the turns its readers may also read.
type readerGroup struct {
	own   map[string]bool
	turns []Turn
}

// readerGroups splits a job's turns by who may read them, so that no fact
// is drawn from a turn its readers may not read, even by a model that
// cites loosely: a fact about Bob's own turn, read beside the room's,
// cannot carry it into a fact the room reads. Each agent and audience of
// the job's stored turns (memory.ReadersOf) gets a group: its own turns
// and those its readers may also read (memory.MayHold, and the org
// scope's turns for an agent's group), in order; the extractor runs once
// per group, and a group keeps only the facts citing one of its own
// turns. A job of one agent and audience is one group of every turn, as
// before; turns that are no stored message are read by every group.
func readerGroups(turns []Turn) []readerGroup {
	var order []string
	reps := map[string]*memory.Memory{}
	for _, t := range turns {
		if t.From == nil {
			continue
		}
		k := memory.ReadersOf(t.From)
		if reps[k] == nil {
			reps[k] = t.From
			order = append(order, k)
		}
	}
	if len(order) <= 1 {
		own := map[string]bool{}
		for _, t := range turns {
			own[t.ID] = true
		}
		return []readerGroup{{own: own, turns: turns}}
	}
	groups := make([]readerGroup, 0, len(order))
	for _, k := range order {
		rep := reps[k]
		g := readerGroup{own: map[string]bool{}}
		for _, t := range turns {
			switch {
			case t.From == nil:
			case memory.ReadersOf(t.From) == k:
				g.own[t.ID] = true
			case !rep.MayHold(t.From) || t.From.AgentID != "" && t.From.AgentID != rep.AgentID:
				continue
			}
			g.turns = append(g.turns, t)
		}
		groups = append(groups, g)
	}
	return groups
}

// keep returns the facts the org's keep and drop lists let through, by
// each fact's kind and category (the family of its slot: see
// memory.FactCategory), and logs how many it dropped.
func (p *Pipeline) keep(ctx context.Context, c memory.Caller, facts []Fact, js jobSettings) []Fact {
	if len(js.KeepKinds)+len(js.DropKinds)+len(js.KeepCategories)+len(js.DropCategories) == 0 {
		return facts
	}
	var out []Fact
	for _, f := range facts {
		f.normalize()
		if js.Keeps(f.Kind, memory.FactCategory(normalizeSlot(f.Slot))) {
			out = append(out, f)
		}
	}
	if n := len(facts) - len(out); n > 0 {
		p.log().InfoContext(ctx, "facts dropped by the org's extraction settings", "org", c.OrgID, "dropped", n,
			"kept", len(out), "settings_version", js.version)
	}
	return out
}

func (p *Pipeline) thresholds() (float64, float64) {
	dup, rel := p.DuplicateAt, p.RelatedAt
	if dup == 0 {
		dup = 0.92
	}
	if rel == 0 {
		rel = 0.85
	}
	return dup, rel
}

// scope is where fact f goes, as a write request's scope and agentId:
//
//   - A fact from an agent-bound conversation (the caller is bound to an
//     agent, or a source turn was written in an agent's scope) goes to that
//     agent's scope, where other agents of the org cannot read it.
//   - A fact about the org itself (see aboutOrg: its subject is the org's
//     id or "the company", "our organization"...) goes to the org scope,
//     when the conversation was not agent-bound, or when OrgFactsFromAgents
//     (or the org's setting of it) allows it and the caller may write
//     there (Caller.WriteScope).
//   - Any other fact of a conversation in the org scope stays in the org
//     scope, as before.
func (p *Pipeline) scope(c memory.Caller, turns []Turn, f Fact, orgFacts bool) (scope, agent string) {
	agent = conversationAgent(c, turns, f)
	if agent == "" {
		return "org", ""
	}
	if aboutOrg(f.Subject, c.OrgID) && (c.AgentID == "" || orgFacts) {
		if _, err := c.WriteScope("org", ""); err == nil {
			return "org", ""
		}
	}
	if c.AgentID != "" {
		return "agent", ""
	}
	return "agent", agent
}

// conversationAgent is the agent whose conversation f was drawn from: the
// caller's, or the agent of a source turn written in an agent's scope;
// "" for a conversation in the org scope.
func conversationAgent(c memory.Caller, turns []Turn, f Fact) string {
	if c.AgentID != "" {
		return c.AgentID
	}
	for _, t := range turns {
		if t.AgentID != "" && slices.Contains(f.Sources, t.ID) {
			return t.AgentID
		}
	}
	return ""
}

// candidates returns the known facts of f's subject that f is compared
// with: those in the scope f is written to, classified by every rule, and,
// when that is an agent's scope, those of the org scope, which f can only
// duplicate (an agent's conversation never changes what the org knows).
//
// A fact with an audience (a room's, a world's, a user's: see
// memory.Visibility) is compared as a reader of that audience: it is
// classified against the facts of its own audience only, and can only
// duplicate the wider ones it sees (Bob saying otherwise never archives
// what the org knows), and it never meets another user's.
func (p *Pipeline) candidates(ctx context.Context, c memory.Caller, f Fact, agent string, vis *memory.Memory) ([]known, []known, error) {
	filter := memory.Filter{Types: []memory.Type{memory.TypeFact}, EntityID: f.entity(), AgentID: memory.OrgScope}
	if agent != "" {
		filter.AgentID = agent
	}
	aud := vis.Audience()
	if aud != "" {
		filter.AgentID = ""
		if agent != "" {
			filter.AgentID = agent
		}
		c.Acting = &memory.Acting{UserID: vis.UserID, RoomID: vis.RoomID, WorldID: vis.WorldID}
	}
	found, err := p.Service.Similar(ctx, c, memory.SimilarRequest{Text: f.Text, K: 10, Filter: filter})
	if err != nil {
		return nil, nil, err
	}
	var same, org []memory.SearchResult
	for _, r := range found {
		if r.Memory.Audience() == aud {
			same = append(same, r)
		} else {
			org = append(org, r)
		}
	}
	if agent != "" && aud == "" {
		filter.AgentID = memory.OrgScope
		if org, err = p.Service.Similar(ctx, c, memory.SimilarRequest{Text: f.Text, K: 3, Filter: filter}); err != nil {
			return nil, nil, err
		}
	}
	conv := func(rs []memory.SearchResult) []known {
		ks := make([]known, len(rs))
		for i, r := range rs {
			ks[i] = knownOf(r)
		}
		return ks
	}
	return conv(same), conv(org), nil
}

// canonicalSubject is the subject as stored in the fact's entityId: the
// speaker's own spelling when the fact is about a speaker, else the
// subject with its first letter upper-cased, so that "maya" and "Maya"
// are found as one entity.
func canonicalSubject(subject string, turns []Turn) string {
	n := memory.NormalizeSubject(subject)
	for _, t := range turns {
		if t.Speaker != "" && memory.NormalizeSubject(t.Speaker) == n {
			return t.Speaker
		}
	}
	if subject != "" && subject[0] >= 'a' && subject[0] <= 'z' {
		return string(subject[0]-'a'+'A') + subject[1:]
	}
	return subject
}

func (p *Pipeline) merge(ctx context.Context, c memory.Caller, turns []Turn, f Fact, js jobSettings) (Outcome, error) {
	f.normalize()
	if f.Subject == "" {
		// A fact without a subject is about the speaker of its first turn.
		for _, t := range turns {
			if len(f.Sources) > 0 && t.ID == f.Sources[0] {
				f.Subject = t.Speaker
			}
		}
	}
	f.Subject = canonicalSubject(f.Subject, turns)
	f.Slot = normalizeSlot(f.Slot)
	o := Outcome{Fact: f}
	scope, agent := p.scope(c, turns, f, js.orgFacts || js.dual)
	o.AgentID = agent
	if scope == "agent" && agent == "" {
		o.AgentID = c.AgentID
	}
	if e := js.names.Resolve(f.Subject, o.AgentID); e != nil {
		f.Subject, f.entityID = e.DisplayName(), e.ID
		o.Fact = f
	}
	vis := &memory.Memory{AgentID: o.AgentID}
	if !vis.Inherit(sources(turns, f)...) {
		// The turns it was drawn from have no one audience that is
		// narrower than each: written as one memory, it would reach
		// someone who may not read one of them.
		p.log().InfoContext(ctx, "fact dropped: its sources have no common visibility", "org", c.OrgID, "sources", f.Sources)
		o.Decision = Dropped
		return o, nil
	}
	same, org, err := p.candidates(ctx, c, f, o.AgentID, vis)
	if err != nil {
		return o, err
	}
	dupAt, relAt := p.thresholds()
	why, target := decide(f, same, dupAt, relAt)
	if Decision(why.Kind) != Duplicate {
		// The org already knowing it is enough: it is not written again
		// in an agent's scope.
		if d, t := decide(f, org, dupAt, relAt); Decision(d.Kind) == Duplicate {
			why, target = d, t
		}
	}
	o.Decision, o.Why = Decision(why.Kind), why
	if target != nil {
		o.Target = target.ID
	}
	if o.Decision == Duplicate {
		o.ID = target.ID
		return o, nil
	}
	fm := memory.FactMeta{Subject: f.Subject, Slot: f.Slot, Value: f.Value, Negated: f.Negated, Decision: &why}
	if o.Decision == Contradicts {
		fm.Contested, fm.ContestedWith = true, []string{target.ID}
	}
	meta, err := json.Marshal(struct {
		memory.FactMeta
		Sources   []string `json:"sources"`
		Extractor string   `json:"extractor"`
		Change    bool     `json:"change,omitempty"`
		// SettingsVersion is the version of the org's extraction
		// settings the fact was extracted under (none: the defaults).
		SettingsVersion int64 `json:"settingsVersion,omitempty"`
	}{fm, f.Sources, p.Extractor.Name(), f.Change, js.version})
	if err != nil {
		return o, fmt.Errorf("extract: fact metadata: %w", err)
	}
	conf, imp := f.Confidence, f.Importance
	res, err := p.Service.Create(ctx, c, []memory.NewMemory{{Scope: scope, AgentID: agent, Type: memory.TypeFact, Kind: f.Kind,
		Visibility: string(vis.Visibility), UserID: vis.UserID, RoomID: vis.RoomID, WorldID: vis.WorldID,
		EntityID: f.entity(), Content: memory.Content{Text: f.Text, Source: "extraction"}, Confidence: &conf, Importance: &imp,
		Durability: f.Durability, Metadata: meta}})
	if err != nil {
		return o, err
	}
	o.ID = res[0].ID
	if res[0].Duplicate {
		o.Decision, o.Target = Duplicate, res[0].ID
		o.Why = memory.FactDecision{Kind: string(Duplicate), Target: res[0].ID, Rule: "same-text", Subject: f.Subject, Slot: f.Slot}
		return o, nil
	}
	var rels []memory.Relation
	for _, src := range f.Sources {
		if _, err := p.Service.Get(ctx, c, src); err == nil {
			rels = append(rels, memory.Relation{FromID: o.ID, Type: memory.RelCausedBy, ToID: src, Confidence: conf, Provenance: f.Sources})
		}
	}
	switch o.Decision {
	case Supersedes:
		rels = append(rels, memory.Relation{FromID: o.ID, Type: memory.RelSupersedes, ToID: target.ID, Confidence: conf, Provenance: f.Sources})
	case Contradicts:
		rels = append(rels, memory.Relation{FromID: o.ID, Type: memory.RelContradicts, ToID: target.ID, Confidence: conf, Provenance: f.Sources})
	case Enriches:
		rels = append(rels, memory.Relation{FromID: o.ID, Type: memory.RelSupports, ToID: target.ID, Confidence: conf, Provenance: f.Sources})
	}
	if len(rels) > 0 {
		if err := p.Service.Relate(ctx, c, rels); err != nil {
			return o, err
		}
	}
	switch o.Decision {
	case Supersedes:
		// The one archive extraction does: the fact a stated change of the
		// same subject and slot replaces. It stays readable by id, with
		// its text, behind the supersedes relation.
		if err := p.Service.Archive(ctx, c, target.ID, "superseded by "+o.ID); err != nil {
			return o, fmt.Errorf("extract: archive superseded fact %s: %w", target.ID, err)
		}
	case Contradicts:
		if err := markContested(ctx, p.Service, c, target.ID, o.ID); err != nil {
			return o, fmt.Errorf("extract: mark contested fact %s: %w", target.ID, err)
		}
	}
	if from := conversationAgent(c, turns, f); js.dual && scope == "org" && from != "" {
		if o.CopyID, err = p.copyToAgent(ctx, c, turns, f, from, o.ID, meta); err != nil {
			return o, fmt.Errorf("extract: agent copy of org fact %s: %w", o.ID, err)
		}
	}
	p.log().InfoContext(ctx, "fact merged", "org", c.OrgID, "agent", o.AgentID, "decision", o.Decision, "rule", why.Rule,
		"id", o.ID, "target", o.Target, "slot", f.Slot, "copy", o.CopyID)
	return o, nil
}

// copyToAgent writes fact f, written to the org scope as orgID, to agent
// from's scope too, where the conversation it was drawn from took place,
// and links the copy to it (relates_to): Lota's dual writes. It returns
// the copy's id ("" when the turns have no visibility the agent's copy
// may take).
func (p *Pipeline) copyToAgent(ctx context.Context, c memory.Caller, turns []Turn, f Fact, from, orgID string, meta []byte) (string, error) {
	vis := &memory.Memory{AgentID: from}
	if !vis.Inherit(sources(turns, f)...) {
		return "", nil
	}
	scope, agent := "agent", from
	if c.AgentID != "" {
		agent = ""
	}
	conf, imp := f.Confidence, f.Importance
	res, err := p.Service.Create(ctx, c, []memory.NewMemory{{Scope: scope, AgentID: agent, Type: memory.TypeFact, Kind: f.Kind,
		Visibility: string(vis.Visibility), UserID: vis.UserID, RoomID: vis.RoomID, WorldID: vis.WorldID,
		EntityID: f.entity(), Content: memory.Content{Text: f.Text, Source: "extraction"}, Confidence: &conf, Importance: &imp,
		Durability: f.Durability, Metadata: meta}})
	if err != nil {
		return "", err
	}
	id := res[0].ID
	err = p.Service.Relate(ctx, c, []memory.Relation{{FromID: id, Type: memory.RelRelatesTo, ToID: orgID, Confidence: conf, Provenance: f.Sources}})
	return id, err
}

// markContested records in fact id's metadata that it is contested by the
// facts others (contested: true, contestedWith: their ids), keeping its
// importance and the rest of its metadata. Marking again changes nothing.
func markContested(ctx context.Context, svc Service, c memory.Caller, id string, others ...string) error {
	m, err := svc.Get(ctx, c, id)
	if err != nil {
		return err
	}
	meta := map[string]any{}
	if len(m.Metadata) > 0 {
		json.Unmarshal(m.Metadata, &meta)
	}
	with := memory.FactMetaOf(m).ContestedWith
	changed := meta[memory.MetaContested] != true
	for _, o := range others {
		if !slices.Contains(with, o) {
			with, changed = append(with, o), true
		}
	}
	if !changed {
		return nil
	}
	meta[memory.MetaContested], meta[memory.MetaContestedWith] = true, with
	js, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return svc.SetImportance(ctx, c, id, m.Importance, js)
}

// sources returns the stored messages of f's source turns.
func sources(turns []Turn, f Fact) []*memory.Memory {
	var out []*memory.Memory
	for _, t := range turns {
		if t.From != nil && slices.Contains(f.Sources, t.ID) {
			out = append(out, t.From)
		}
	}
	return out
}
