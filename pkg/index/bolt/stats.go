package bolt

import "github.com/agentmem/agentmem/pkg/memory"

// Keyword scores that leak nothing. BM25 weighs a term by how many
// memories hold it (its document frequency) among how many there are, and
// normalises by the average length: computed over the whole org, a reader
// could tell from the score of a memory it sees whether a word occurs in
// memories it may not see (another agent's, another room's or user's). So
// a reader's statistics are those of the memories it may see, and nothing
// else: the score of a visible memory is the same whether or not invisible
// memories hold the query's words (the Index contract's "keyword scores
// leak nothing", TestScoresLeakNothingAtScale).
//
// Who may see a memory is decided by two attributes, its agent and its
// audience (Filter.Match: Viewer and Audiences), so the org's memories
// fall into visibility partitions, one per (agent, audience) pair, and
// what a reader sees is a union of partitions. Each partition keeps its
// memory count, its token count and its document frequencies; each agent
// keeps the same over all its audiences, so that a reader bound to an
// agent and to no audience (the common agent key) sums two maps, not one
// per room. The admin view, and any reader who happens to see the whole
// org, uses the org's totals as before.
//
// The cost is in memory and in writes: every memory adds its distinct
// terms to two maps beside the org's postings (its partition's and its
// agent's). A query adds, per term, one map read per partition it sees.

// partKey names a visibility partition.
type partKey struct{ agent, audience string }

// tally is the statistics of a set of memories: how many, their tokens,
// and by term id how many hold the term (absent for none).
type tally struct {
	n     int
	total uint64
	df    map[uint32]uint32
}

func (t *tally) add(tids []uint32, length uint32) {
	t.n++
	t.total += uint64(length)
	for _, tid := range tids {
		t.df[tid]++
	}
}

func (t *tally) remove(tids []uint32, length uint32) {
	t.n--
	t.total -= uint64(length)
	for _, tid := range tids {
		if t.df[tid] <= 1 {
			delete(t.df, tid)
		} else {
			t.df[tid]--
		}
	}
}

// visibilityStats is an org's statistics by visibility partition.
// Partition 0 is the removed memories' class's and holds nothing.
type visibilityStats struct {
	keys       []partKey
	parts      []*tally
	of         map[partKey]uint32
	byAgent    map[string]*tally
	byAudience map[string][]uint32 // partitions by audience
}

func newVisibilityStats() visibilityStats {
	return visibilityStats{keys: []partKey{{}}, parts: []*tally{nil}, of: map[partKey]uint32{},
		byAgent: map[string]*tally{}, byAudience: map[string][]uint32{}}
}

// partition returns the partition of memories of this agent and
// audience, adding it if new.
func (v *visibilityStats) partition(agent, audience string) uint32 {
	k := partKey{agent, audience}
	if p, ok := v.of[k]; ok {
		return p
	}
	p := uint32(len(v.keys))
	v.keys = append(v.keys, k)
	v.parts = append(v.parts, &tally{df: map[uint32]uint32{}})
	v.of[k] = p
	v.byAudience[audience] = append(v.byAudience[audience], p)
	if v.byAgent[agent] == nil {
		v.byAgent[agent] = &tally{df: map[uint32]uint32{}}
	}
	return p
}

// add counts a memory of partition p with these term ids and length.
func (v *visibilityStats) add(p uint32, tids []uint32, length uint32) {
	v.parts[p].add(tids, length)
	v.byAgent[v.keys[p].agent].add(tids, length)
}

// remove uncounts what add counted.
func (v *visibilityStats) remove(p uint32, tids []uint32, length uint32) {
	v.parts[p].remove(tids, length)
	v.byAgent[v.keys[p].agent].remove(tids, length)
}

// readerStats is the statistics that score one reader's keyword search:
// those of the memories its filter's visibility (Viewer, Audiences) lets
// it see, whatever else the filter narrows (a filter on a type or a room
// is the reader's own choice, and scores as the org's view it narrows).
type readerStats struct {
	n     int
	total uint64
	org   *orgIndex // the org's totals (the reader sees every memory); else sums
	sums  []*tally
}

// df is how many memories the reader sees hold term tid.
func (r *readerStats) df(tid uint32) uint32 {
	if r.org != nil {
		return r.org.df[tid]
	}
	var n uint32
	for _, t := range r.sums {
		n += t.df[tid]
	}
	return n
}

// readerStats returns the statistics of what f's reader may see. Which
// partitions that is, is decided by f.Match itself (the reference rule),
// over the candidates that the lookups by agent and audience name.
func (o *orgIndex) readerStats(f memory.Filter) readerStats {
	if f.Viewer == "" && f.Audiences == nil {
		return readerStats{n: o.live, total: o.totalLen, org: o}
	}
	vf := memory.Filter{OrgID: f.OrgID, Viewer: f.Viewer, Audiences: f.Audiences, IncludeArchived: true}
	sees := func(k partKey) bool {
		return vf.Match(memory.Attrs{OrgID: f.OrgID, AgentID: k.agent, Audience: k.audience})
	}
	var r readerStats
	if f.Audiences == nil { // bound to an agent, every audience: the agents' totals
		for _, agent := range []string{"", f.Viewer} {
			if t := o.vis.byAgent[agent]; t != nil && sees(partKey{agent: agent}) {
				r.n, r.total, r.sums = r.n+t.n, r.total+t.total, append(r.sums, t)
			}
		}
	} else {
		seen := map[string]bool{}
		for _, aud := range append([]string{""}, f.Audiences...) {
			if seen[aud] {
				continue
			}
			seen[aud] = true
			for _, p := range o.vis.byAudience[aud] {
				if t := o.vis.parts[p]; t.n > 0 && sees(o.vis.keys[p]) {
					r.n, r.total, r.sums = r.n+t.n, r.total+t.total, append(r.sums, t)
				}
			}
		}
	}
	if r.n == o.live { // the reader sees the whole org: one lookup per term
		return readerStats{n: o.live, total: o.totalLen, org: o}
	}
	return r
}
