// Package consolidate keeps an org's memory healthy over time, on a
// schedule: importance decays by durability tier and is boosted by use,
// memories that decayed away are archived and, after a retention period,
// deleted; near-duplicate facts are merged, and contradictions are resolved
// when one side is clearly stronger, or else kept and marked contested.
//
// Decay runs from when the service learned a memory (Memory.LearnedAt: the
// later of its event time and its ingestion time) or from its last access,
// whichever is later, so history imported with an old createdAt starts
// fresh rather than below the archive threshold.
//
// Nothing true is lost to a guess: two facts are merged as duplicates only
// when they agree on subject, polarity and (when both have one) slot and
// value; a contradiction is resolved only by a clear margin (see
// Config.ResolveConfidence and Config.ResolveRecency); otherwise both facts
// stay, marked in their metadata ("contested": true, "contestedWith": the
// other ids) beside their contradicts relation, for the prompt context to
// show both with their dates.
//
// A run is idempotent: the effective importance is a pure function of the
// memory's base importance (kept in its metadata), its tier's half-life,
// the time since it was last touched and its access count, so a second run
// at the same time computes the same values and writes nothing.
package consolidate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Config holds the policy; zero fields take the defaults.
type Config struct {
	HalfLifeStandard  time.Duration // default 90 days
	HalfLifeEphemeral time.Duration // default 7 days
	ArchiveBelow      float64       // effective importance under which a memory is archived (default 0.1)
	MinAge            time.Duration // a memory younger than this is never archived (default 30 days)
	Retention         time.Duration // archived memories are deleted after this (default 90 days)
	DuplicateAt       float64       // cosine from which two facts are the same (default 0.95)
	PageSize          int           // memories per page, checkpointed (default 200)
	// A contradiction is resolved for the side that is clearly stronger:
	// more confident by at least ResolveConfidence (default 0.2) and not
	// older, or newer (event time) by at least ResolveRecency (default 30
	// days) and not less confident. Otherwise both sides are kept.
	ResolveConfidence float64
	ResolveRecency    time.Duration
}

func (c Config) withDefaults() Config {
	day := 24 * time.Hour
	if c.HalfLifeStandard == 0 {
		c.HalfLifeStandard = 90 * day
	}
	if c.HalfLifeEphemeral == 0 {
		c.HalfLifeEphemeral = 7 * day
	}
	if c.ArchiveBelow == 0 {
		c.ArchiveBelow = 0.1
	}
	if c.MinAge == 0 {
		c.MinAge = 30 * day
	}
	if c.Retention == 0 {
		c.Retention = 90 * day
	}
	if c.DuplicateAt == 0 {
		c.DuplicateAt = 0.95
	}
	if c.PageSize == 0 {
		c.PageSize = 200
	}
	if c.ResolveConfidence == 0 {
		c.ResolveConfidence = 0.2
	}
	if c.ResolveRecency == 0 {
		c.ResolveRecency = 30 * day
	}
	return c
}

// Report counts what a run did.
type Report struct {
	OrgID        string `json:"orgId"`
	StartedAt    int64  `json:"startedAt"`
	FinishedAt   int64  `json:"finishedAt,omitempty"`
	Cursor       string `json:"cursor,omitempty"` // where an interrupted run resumes
	Scanned      int    `json:"scanned"`
	Decayed      int    `json:"decayed"`
	Archived     int    `json:"archived"`
	Deleted      int    `json:"deleted"`
	Merged       int    `json:"merged"`
	Contradicted int    `json:"contradictionsResolved"`
	// Contested counts the facts newly marked contested (kept beside a
	// contradiction neither side clearly wins).
	Contested int `json:"contested"`
	// CheckContexts is set on the runs that check messages' contexts (until
	// one such run finishes: see contextsID), ContextsRewritten counts the
	// contexts they repaired.
	CheckContexts     bool `json:"checkContexts,omitempty"`
	ContextsRewritten int  `json:"contextsRewritten,omitempty"`
}

// Records kinds and ids of the job's state.
const (
	recordKind   = "JOB"
	checkpointID = "consolidation-checkpoint"
	lastRunID    = "consolidation-last"
	// contextsID marks an org whose messages' contexts a finished run has
	// checked: a context written before threading followed
	// memory.MayHold may hold an end user's own turn (service.Worker.Rethread).
	contextsID    = "consolidation-contexts-v1"
	metaKey       = "consolidation"
	reasonDecayed = "decayed"
	reasonMerged  = "duplicate of "
	reasonContra  = "contradicted by "
	archivedAtKey = "archivedAt"
)

// Service is what the job uses of the memory service (service.Worker is
// one): every org's memories are listed, decayed, merged with their near
// duplicates and contradictions, and expired, on the service's clock.
type Service interface {
	Orgs(ctx context.Context) ([]string, error)
	Now() time.Time
	Embedder() memory.Embedder
	List(ctx context.Context, c memory.Caller, f memory.Filter, limit int, cursor string) (memory.Page, error)
	Get(ctx context.Context, c memory.Caller, id string) (*memory.Memory, error)
	Similar(ctx context.Context, c memory.Caller, r memory.SimilarRequest) ([]memory.SearchResult, error)
	Relations(ctx context.Context, c memory.Caller, id string) ([]memory.Relation, error)
	SetImportance(ctx context.Context, c memory.Caller, id string, importance float64, metadata json.RawMessage) error
	Archive(ctx context.Context, c memory.Caller, id, reason string) error
	Delete(ctx context.Context, c memory.Caller, id string, o memory.DeleteOptions) (memory.Forgotten, error)
	Rethread(ctx context.Context, m *memory.Memory) (bool, error)
}

// Job consolidates orgs.
type Job struct {
	Service Service
	Records memory.RecordStore
	Config  Config
	Log     *slog.Logger
}

func (j *Job) log() *slog.Logger {
	if j.Log != nil {
		return j.Log
	}
	return slog.Default()
}

// Last returns the report of the org's last finished run; ENOTFOUND if none.
func (j *Job) Last(ctx context.Context, org string) (Report, error) {
	var r Report
	_, err := j.Records.GetRecord(ctx, org, recordKind, lastRunID, &r)
	return r, err
}

// Run consolidates one org. If a previous run was interrupted, it resumes
// from that run's checkpoint (same start time, same cursor); every page's
// progress is checkpointed. The report is logged and kept as the last run.
func (j *Job) Run(ctx context.Context, org string) (Report, error) {
	cfg := j.Config.withDefaults()
	c := memory.Caller{OrgID: org}
	rep := Report{OrgID: org, StartedAt: j.Service.Now().UnixMilli()}
	var cp Report
	if _, err := j.Records.GetRecord(ctx, org, recordKind, checkpointID, &cp); err == nil && cp.FinishedAt == 0 {
		rep = cp // resume the interrupted run
	} else {
		var done Report
		_, err := j.Records.GetRecord(ctx, org, recordKind, contextsID, &done)
		if err != nil && !memory.IsNotFound(err) {
			return rep, err
		}
		rep.CheckContexts = err != nil
	}
	now := time.UnixMilli(rep.StartedAt)
	for {
		page, err := j.Service.List(ctx, c, memory.Filter{IncludeArchived: true}, cfg.PageSize, rep.Cursor)
		if err != nil {
			return rep, err
		}
		for _, m := range page.Memories {
			if err := j.one(ctx, c, m, now, cfg, &rep); err != nil {
				return rep, fmt.Errorf("consolidate %s: %w", m.ID, err)
			}
			rep.Scanned++
		}
		rep.Cursor = page.Next.Encode()
		if _, err := j.Records.PutRecord(ctx, org, recordKind, checkpointID, rep, 0); err != nil {
			return rep, err
		}
		if page.Next == nil {
			break
		}
	}
	rep.Cursor, rep.FinishedAt = "", j.Service.Now().UnixMilli()
	if _, err := j.Records.PutRecord(ctx, org, recordKind, checkpointID, rep, 0); err != nil {
		return rep, err
	}
	if _, err := j.Records.PutRecord(ctx, org, recordKind, lastRunID, rep, 0); err != nil {
		return rep, err
	}
	if rep.CheckContexts {
		if _, err := j.Records.PutRecord(ctx, org, recordKind, contextsID, rep, 0); err != nil {
			return rep, err
		}
	}
	j.log().InfoContext(ctx, "consolidation", "org", org, "scanned", rep.Scanned, "decayed", rep.Decayed,
		"archived", rep.Archived, "deleted", rep.Deleted, "merged", rep.Merged, "contradictions_resolved", rep.Contradicted,
		"contested", rep.Contested, "contexts_rewritten", rep.ContextsRewritten,
		"ms", rep.FinishedAt-rep.StartedAt)
	return rep, nil
}

// state is what consolidation keeps in a memory's metadata.
type state struct {
	Base  float64 `json:"base"`  // the importance its writer gave it
	Value float64 `json:"value"` // the effective importance last written
}

func metadata(m *memory.Memory) map[string]any {
	meta := map[string]any{}
	if len(m.Metadata) > 0 {
		json.Unmarshal(m.Metadata, &meta)
	}
	return meta
}

// Effective is the importance of a memory at now: its base importance
// halved every half-life of its tier since it was last learned or used
// (core memories do not decay), plus a boost for use (0.05 per doubling of
// the access count, at most 0.3), within 0..1, rounded to 1e-3 so that
// repeated runs agree exactly.
func Effective(base float64, d memory.Durability, lastTouched, now time.Time, accesses int64, cfg Config) float64 {
	cfg = cfg.withDefaults()
	v := base
	var half time.Duration
	switch d {
	case memory.DurabilityStandard:
		half = cfg.HalfLifeStandard
	case memory.DurabilityEphemeral:
		half = cfg.HalfLifeEphemeral
	}
	if half > 0 && now.After(lastTouched) {
		v *= math.Pow(0.5, float64(now.Sub(lastTouched))/float64(half))
	}
	v += math.Min(0.3, 0.05*math.Log2(1+float64(accesses)))
	return math.Round(math.Max(0, math.Min(1, v))*1000) / 1000
}

func (j *Job) one(ctx context.Context, c memory.Caller, m *memory.Memory, now time.Time, cfg Config, rep *Report) error {
	// Re-read: an earlier memory of this page may have archived this one
	// (a merge or a contradiction), and the page is a snapshot.
	m, err := j.Service.Get(ctx, c, m.ID)
	if memory.IsNotFound(err) {
		return nil
	} else if err != nil {
		return err
	}
	if rep.CheckContexts && m.Type == memory.TypeMessage {
		rewritten, err := j.Service.Rethread(ctx, m)
		if err != nil {
			return err
		}
		if rewritten {
			rep.ContextsRewritten++
		}
	}
	meta := metadata(m)
	if m.Archived {
		at, _ := meta[archivedAtKey].(float64)
		if at == 0 {
			at = float64(m.UpdatedAt)
		}
		if now.Sub(time.UnixMilli(int64(at))) >= cfg.Retention {
			if _, err := j.Service.Delete(ctx, c, m.ID, memory.DeleteOptions{}); err != nil && !memory.IsNotFound(err) {
				return err
			}
			rep.Deleted++
		}
		return nil
	}
	// Importance: recompute from the base; a writer's change resets the base.
	var st state
	if raw, ok := meta[metaKey]; ok {
		js, _ := json.Marshal(raw)
		json.Unmarshal(js, &st)
	}
	if _, ok := meta[metaKey]; !ok || math.Abs(m.Importance-st.Value) > 1e-9 {
		st.Base = m.Importance
	}
	learned := time.UnixMilli(m.LearnedAt())
	last := time.UnixMilli(max(m.LearnedAt(), m.LastAccessedAt))
	eff := Effective(st.Base, m.Durability, last, now, m.AccessCount, cfg)
	if math.Abs(eff-m.Importance) > 1e-9 || st.Value != eff {
		st.Value = eff
		meta[metaKey] = st
		js, _ := json.Marshal(meta)
		if err := j.Service.SetImportance(ctx, c, m.ID, eff, js); err != nil {
			return err
		}
		rep.Decayed++
	}
	if m.Durability != memory.DurabilityCore && eff < cfg.ArchiveBelow && now.Sub(learned) >= cfg.MinAge {
		if err := j.Service.Archive(ctx, c, m.ID, reasonDecayed); err != nil {
			return err
		}
		rep.Archived++
		return nil
	}
	if m.Type != memory.TypeFact && m.Type != memory.TypeCustom && m.Type != memory.TypeDescription {
		return nil
	}
	// Near duplicates: keep the more confident, then newer one.
	// Compared as stored texts; the memory's own embedding when it is the
	// current model's, so nothing is embedded again.
	req := memory.SimilarRequest{Text: m.SearchText(), K: 3,
		Filter: memory.Filter{Types: []memory.Type{m.Type}, EntityID: m.EntityID, AgentID: scopeOf(m)}}
	if e := j.Service.Embedder(); m.EmbeddingModel == e.Model() && len(m.Embedding) == e.Dimensions() {
		req.Vector = m.Embedding
	}
	cands, err := j.Service.Similar(ctx, c, req)
	if err != nil {
		return err
	}
	for _, cand := range cands {
		if cand.Memory.ID == m.ID || cand.Semantic == nil || cand.Semantic.Score < cfg.DuplicateAt || !sameFact(m, cand.Memory) {
			continue
		}
		loser, winner := m, cand.Memory
		if better(m, cand.Memory) {
			loser, winner = cand.Memory, m
		}
		// The fact archived must leave its readers the one it merged into
		// (memory.MayHold): an end user's own copy of a shared fact goes,
		// whichever is more confident; two users' copies both stay.
		if !loser.MayHold(winner) {
			if !winner.MayHold(loser) {
				continue
			}
			loser, winner = winner, loser
		}
		if err := j.Service.Archive(ctx, c, loser.ID, reasonMerged+winner.ID); err != nil {
			return err
		}
		rep.Merged++
		if loser == m {
			return nil
		}
	}
	return j.contradictions(ctx, c, m, cfg, rep)
}

// contradictions resolves the contradictions of m that one side clearly
// wins (the loser is archived, the reason naming the winner and the
// margins) and marks m contested by those that neither side wins, or
// clears the mark when none is left.
func (j *Job) contradictions(ctx context.Context, c memory.Caller, m *memory.Memory, cfg Config, rep *Report) error {
	rels, err := j.Service.Relations(ctx, c, m.ID)
	if err != nil {
		return err
	}
	var contested []string
	for _, r := range rels {
		if r.Type != memory.RelContradicts {
			continue
		}
		other := r.ToID
		if other == m.ID {
			other = r.FromID
		}
		o, err := j.Service.Get(ctx, c, other)
		if err != nil || o.Archived {
			continue
		}
		winner, loser, why := resolve(m, o, cfg)
		if winner != nil && !loser.MayHold(winner) {
			// What Bob says otherwise never archives what the org knows
			// (memory.MayHold): the narrower side stays contested.
			winner = nil
		}
		if winner == nil {
			// The mark names o, so only where m's readers may read it.
			if m.MayHold(o) && !slices.Contains(contested, o.ID) {
				contested = append(contested, o.ID)
			}
			continue
		}
		if err := j.Service.Archive(ctx, c, loser.ID, reasonContra+winner.ID+" ("+why+")"); err != nil {
			return err
		}
		rep.Contradicted++
		if loser == m {
			return nil
		}
	}
	return j.markContested(ctx, c, m.ID, contested, rep)
}

// resolve returns the clearly stronger of two contradicting facts, and the
// margins that make it so; nil when neither is.
func resolve(a, b *memory.Memory, cfg Config) (winner, loser *memory.Memory, why string) {
	const eps = 1e-9
	stronger := func(x, y *memory.Memory) (bool, string) {
		conf := x.Confidence - y.Confidence
		newer := time.Duration(x.CreatedAt-y.CreatedAt) * time.Millisecond
		days := int(newer / (24 * time.Hour))
		switch {
		case conf >= cfg.ResolveConfidence-eps && newer >= 0:
			return true, fmt.Sprintf("confidence +%.2f, newer by %d days", conf, days)
		case newer >= cfg.ResolveRecency && conf >= -eps:
			return true, fmt.Sprintf("newer by %d days, confidence +%.2f", days, conf)
		}
		return false, ""
	}
	if ok, why := stronger(a, b); ok {
		return a, b, why
	}
	if ok, why := stronger(b, a); ok {
		return b, a, why
	}
	return nil, nil, ""
}

// markContested sets fact id's contested mark to the live facts others
// contradicting it without a winner; an empty others clears the mark.
// It writes only when the mark changes.
func (j *Job) markContested(ctx context.Context, c memory.Caller, id string, others []string, rep *Report) error {
	m, err := j.Service.Get(ctx, c, id)
	if err != nil {
		return err
	}
	fm := memory.FactMetaOf(m)
	slices.Sort(others)
	have := slices.Clone(fm.ContestedWith)
	slices.Sort(have)
	if fm.Contested == (len(others) > 0) && slices.Equal(have, others) {
		return nil
	}
	meta := metadata(m)
	if len(others) == 0 {
		delete(meta, memory.MetaContested)
		delete(meta, memory.MetaContestedWith)
	} else {
		if !fm.Contested {
			rep.Contested++
		}
		meta[memory.MetaContested], meta[memory.MetaContestedWith] = true, others
	}
	js, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	return j.Service.SetImportance(ctx, c, id, m.Importance, js)
}

// negatedRe finds a denial in the text of a fact without polarity metadata.
var negatedRe = regexp.MustCompile(`(?i)\b(don't|do not|does not|doesn't|never|no longer|not|isn't|can't|cannot|won't|hates?|dislikes?)\b`)

// sameFact reports whether two similar facts may be merged as one: the
// same subject and polarity and, when both name a slot, the same slot and
// value. "Ana lives in Lisbon" and "Ana lives in Porto" are close in
// meaning and both may be true at different times; they are not merged.
func sameFact(a, b *memory.Memory) bool {
	fa, fb := memory.FactMetaOf(a), memory.FactMetaOf(b)
	subject := func(m *memory.Memory, f memory.FactMeta) string {
		if f.Subject != "" {
			return memory.NormalizeSubject(f.Subject)
		}
		return memory.NormalizeSubject(m.EntityID)
	}
	negated := func(m *memory.Memory, f memory.FactMeta) bool {
		if f.Subject != "" || f.Slot != "" {
			return f.Negated
		}
		return negatedRe.MatchString(m.Content.Text)
	}
	if subject(a, fa) != subject(b, fb) || negated(a, fa) != negated(b, fb) {
		return false
	}
	if fa.Slot != "" && fb.Slot != "" {
		return strings.EqualFold(fa.Slot, fb.Slot) && memory.NormalizeText(fa.Value) == memory.NormalizeText(fb.Value)
	}
	return true
}

// better reports whether a should be kept over b: more confident, then
// newer, then the smaller id (so the choice is deterministic).
func better(a, b *memory.Memory) bool {
	if a.Confidence != b.Confidence {
		return a.Confidence > b.Confidence
	}
	if a.CreatedAt != b.CreatedAt {
		return a.CreatedAt > b.CreatedAt
	}
	return a.ID < b.ID
}

func scopeOf(m *memory.Memory) string {
	if m.AgentID == "" {
		return memory.OrgScope
	}
	return m.AgentID
}

// RunAll consolidates every org of the store, one after the other, and
// returns their reports; an org that fails does not stop the others.
func (j *Job) RunAll(ctx context.Context) ([]Report, error) {
	orgs, err := j.Service.Orgs(ctx)
	if err != nil {
		return nil, err
	}
	var reps []Report
	var errs []error
	for _, org := range orgs {
		rep, err := j.Run(ctx, org)
		if err != nil {
			j.log().ErrorContext(ctx, "consolidation failed", "org", org, "err", err)
			errs = append(errs, fmt.Errorf("%s: %w", org, err))
			continue
		}
		reps = append(reps, rep)
	}
	return reps, errors.Join(errs...)
}
