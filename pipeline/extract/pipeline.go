package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/service"
	"log/slog"

	"github.com/agentmem/agentmem/memory"
)

// Pipeline extracts facts from turns and merges them into the store.
type Pipeline struct {
	Service   *service.Service
	Extractor Extractor
	Log       *slog.Logger
	// DuplicateAt is the cosine similarity from which a fact with the same
	// polarity is the same fact (default 0.92); RelatedAt the one from
	// which it is about the same thing (default 0.6).
	DuplicateAt, RelatedAt float64
}

// Outcome is what happened to one extracted fact.
type Outcome struct {
	Fact     Fact     `json:"fact"`
	Decision Decision `json:"decision"`
	ID       string   `json:"id,omitempty"`     // the fact memory written (or the one it duplicates)
	Target   string   `json:"target,omitempty"` // the existing fact it duplicates, enriches, supersedes or contradicts
}

func (p *Pipeline) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// Process extracts facts from turns spoken in caller c's org and merges
// each into what c already knows. Processing the same turns again finds
// the same facts again and writes nothing new.
func (p *Pipeline) Process(ctx context.Context, c memory.Caller, turns []Turn) ([]Outcome, error) {
	var useful []Turn
	for _, t := range turns {
		if !smallTalk(t.Text) {
			useful = append(useful, t)
		}
	}
	if len(useful) == 0 {
		return nil, nil
	}
	facts, err := p.Extractor.Extract(ctx, useful)
	if err != nil {
		return nil, err
	}
	var out []Outcome
	for _, f := range facts {
		o, err := p.merge(ctx, c, f)
		if err != nil {
			return out, err
		}
		out = append(out, o)
	}
	return out, nil
}

func (p *Pipeline) thresholds() (float64, float64) {
	dup, rel := p.DuplicateAt, p.RelatedAt
	if dup == 0 {
		dup = 0.92
	}
	if rel == 0 {
		rel = 0.6
	}
	return dup, rel
}

// decide classifies f against the most similar known facts of its entity.
func (p *Pipeline) decide(f Fact, cands []service.SearchResult) (Decision, *memory.Memory) {
	if len(cands) == 0 {
		return New, nil
	}
	dupAt, relAt := p.thresholds()
	best := cands[0]
	cos := 0.0
	if best.Semantic != nil {
		cos = best.Semantic.Score
	}
	bestNegated := negatedRe.MatchString(best.Memory.Content.Text)
	switch {
	case memory.NormalizeText(best.Memory.Content.Text) == memory.NormalizeText(f.Text),
		cos >= dupAt && bestNegated == f.Negated:
		return Duplicate, best.Memory
	case f.Change && best.Memory.Kind == f.Kind:
		// A change of a fact of the same entity and kind replaces the
		// closest earlier one ("I prefer coffee now" after "I love tea").
		return Supersedes, best.Memory
	case cos >= relAt && bestNegated != f.Negated:
		return Contradicts, best.Memory
	case cos >= relAt:
		return Enriches, best.Memory
	}
	return New, nil
}

func (p *Pipeline) merge(ctx context.Context, c memory.Caller, f Fact) (Outcome, error) {
	o := Outcome{Fact: f}
	if f.Kind == "" {
		f.Kind = memory.KindFact
	}
	if f.Durability == "" {
		f.Durability = memory.DurabilityStandard
	}
	cands, err := p.Service.Similar(ctx, c, service.SimilarRequest{Text: f.Text, K: 5,
		Filter: memory.Filter{Types: []memory.Type{memory.TypeFact}, EntityID: f.Entity}})
	if err != nil {
		return o, err
	}
	decision, target := p.decide(f, cands)
	o.Decision = decision
	if target != nil {
		o.Target = target.ID
	}
	if decision == Duplicate {
		o.ID = target.ID
		return o, nil
	}
	// Facts about the caller's own agent go to its scope, the rest to the org.
	scope, agent := "org", ""
	if c.AgentID != "" && f.Entity == c.AgentID {
		scope, agent = "agent", c.AgentID
	}
	meta, _ := json.Marshal(map[string]any{"sources": f.Sources, "extractor": p.Extractor.Name(), "decision": decision})
	conf := f.Confidence
	if conf <= 0 || conf > 1 {
		conf = 0.7
	}
	res, err := p.Service.Create(ctx, c, []service.NewMemory{{Scope: scope, AgentID: agent, Type: memory.TypeFact, Kind: f.Kind,
		EntityID: f.Entity, Content: memory.Content{Text: f.Text, Source: "extraction"}, Confidence: &conf,
		Durability: f.Durability, Metadata: meta}})
	if err != nil {
		return o, err
	}
	o.ID = res[0].ID
	if res[0].Duplicate {
		o.Decision, o.Target = Duplicate, res[0].ID
		return o, nil
	}
	var rels []memory.Relation
	for _, src := range f.Sources {
		if _, err := p.Service.Get(ctx, c, src); err == nil {
			rels = append(rels, memory.Relation{FromID: o.ID, Type: memory.RelCausedBy, ToID: src, Confidence: conf, Provenance: f.Sources})
		}
	}
	switch decision {
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
	if decision == Supersedes {
		if err := p.Service.Archive(ctx, c, target.ID, "superseded by "+o.ID); err != nil {
			return o, fmt.Errorf("archive superseded fact %s: %w", target.ID, err)
		}
	}
	p.log().InfoContext(ctx, "fact merged", "org", c.OrgID, "decision", decision, "id", o.ID, "target", o.Target)
	return o, nil
}
