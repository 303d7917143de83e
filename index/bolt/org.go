package bolt

import (
	"unique"

	"github.com/agentmem/agentmem/memory"
)

// orgIndex is one org's memories: parallel slices by ordinal, an inverted
// index over the analysed text, and the vector matrix. Ordinals grow as
// memories are added; a removed memory leaves a hole (empty id) that the
// searches skip until compaction renumbers the live ones.
type orgIndex struct {
	ids    []string // "" for a removed memory
	attrs  []memory.Attrs
	length []uint32   // tokens
	terms  [][]uint32 // term ids of each memory, to maintain document frequencies
	q8     []int8     // the vectors in int8, ordinal * dims (the float32 ones stay in bbolt)
	quants []quant
	hasVec []bool
	pos    map[string]uint32

	live, dead, vectors int
	totalLen            uint64 // tokens over live memories

	dict     map[string]uint32
	postings []postings // by term id
	df       []uint32   // live memories holding the term

	graph *hnsw // the approximate vector index, nil below the threshold (hnsw.go)
}

// postings lists the ordinals holding a term, ascending, with the term's
// frequency in each.
type postings struct {
	docs []uint32
	tfs  []uint16
}

func newOrgIndex() *orgIndex {
	return &orgIndex{pos: map[string]uint32{}, dict: map[string]uint32{}}
}

// add appends d under id, which must not be present.
func (o *orgIndex) add(id string, d *doc, dims int) {
	ord := uint32(len(o.ids))
	if want := int(ord) * dims; len(o.q8) < want { // dims learned after keyword-only memories
		o.q8 = append(o.q8, make([]int8, want-len(o.q8))...)
	}
	o.pos[id] = ord
	o.ids = append(o.ids, id)
	o.attrs = append(o.attrs, intern(d.attrs))
	o.length = append(o.length, d.length)
	tids := make([]uint32, len(d.terms))
	for i, t := range d.terms {
		tid, ok := o.dict[t]
		if !ok {
			tid = uint32(len(o.postings))
			o.dict[t] = tid
			o.postings = append(o.postings, postings{})
			o.df = append(o.df, 0)
		}
		p := &o.postings[tid]
		p.docs = append(p.docs, ord)
		p.tfs = append(p.tfs, d.tfs[i])
		o.df[tid]++
		tids[i] = tid
	}
	o.terms = append(o.terms, tids)
	has := dims > 0 && (len(d.vec) == dims || len(d.q8) == dims)
	o.hasVec = append(o.hasVec, has)
	o.q8 = append(o.q8, make([]int8, dims)...)
	var qt quant
	if has {
		at := int(ord) * dims
		if d.q8 != nil {
			copy(o.q8[at:], d.q8)
			qt = d.quant
		} else {
			qt = quantize(d.vec, o.q8[at:at+dims])
		}
		o.vectors++
	}
	o.quants = append(o.quants, qt)
	o.live++
	o.totalLen += uint64(d.length)
}

// remove drops id if present, compacting when holes outnumber live
// memories.
func (o *orgIndex) remove(id string, dims int) {
	ord, ok := o.pos[id]
	if !ok {
		return
	}
	delete(o.pos, id)
	for _, tid := range o.terms[ord] {
		o.df[tid]--
	}
	if o.hasVec[ord] {
		o.vectors--
	}
	o.ids[ord], o.attrs[ord], o.terms[ord], o.hasVec[ord] = "", memory.Attrs{}, nil, false
	o.live--
	o.dead++
	o.totalLen -= uint64(o.length[ord])
	if o.dead > 1024 && o.dead > o.live {
		o.compact(dims)
	}
}

// compact renumbers the live memories densely and rebuilds the postings
// without holes or unused terms.
func (o *orgIndex) compact(dims int) {
	names := make([]string, len(o.postings))
	for t, tid := range o.dict {
		names[tid] = t
	}
	n := newOrgIndex()
	for ord, id := range o.ids {
		if id == "" {
			continue
		}
		d := &doc{attrs: o.attrs[ord], length: o.length[ord]}
		for _, tid := range o.terms[ord] {
			d.terms = append(d.terms, names[tid])
			d.tfs = append(d.tfs, o.tfOf(tid, uint32(ord)))
		}
		if o.hasVec[ord] {
			d.q8, d.quant = o.q8[ord*dims:(ord+1)*dims], o.quants[ord]
		}
		n.add(id, d, dims)
	}
	if g := o.graph; g != nil && g.ready { // renumbered and repaired; one still building starts over
		next := make([]int32, len(o.ids))
		for ord, id := range o.ids {
			next[ord] = -1
			if id != "" {
				next[ord] = int32(n.pos[id])
			}
		}
		n.graph = g.compacted(spaceOf(n, dims), next, len(n.ids))
	}
	*o = *n
}

// tfOf finds ord's frequency in the term's postings (ascending ordinals).
func (o *orgIndex) tfOf(tid, ord uint32) uint16 {
	p := &o.postings[tid]
	lo, hi := 0, len(p.docs)
	for lo < hi {
		m := (lo + hi) / 2
		if p.docs[m] < ord {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return p.tfs[lo]
}

// intern returns a with its strings made canonical (unique.Make): the
// org's entries then share one copy of each org id, agent id, type, room...
// The exact scan matches every entry's attributes against the filter, and
// with a copy per entry each comparison was a cache miss: at 100,000
// memories the filter cost more than the int8 scoring (8 of 13 ms).
func intern(a memory.Attrs) memory.Attrs {
	in := func(s string) string { return unique.Make(s).Value() }
	a.OrgID, a.AgentID, a.RoomID, a.EntityID = in(a.OrgID), in(a.AgentID), in(a.RoomID), in(a.EntityID)
	a.SessionID, a.DocumentID = in(a.SessionID), in(a.DocumentID)
	a.Type, a.Kind, a.Durability = memory.Type(in(string(a.Type))), memory.Kind(in(string(a.Kind))), memory.Durability(in(string(a.Durability)))
	return a
}
