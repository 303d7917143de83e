package bolt

import (
	"math"
	"slices"
	"unique"

	"github.com/agentmem/agentmem/pkg/memory"
)

// orgIndex is one org's memories: parallel slices by ordinal, an inverted
// index over the analysed text, and the vector matrix. Ordinals grow as
// memories are added; a removed memory leaves a hole (empty id) that the
// searches skip until compaction renumbers the live ones.
type orgIndex struct {
	ids []string // "" for a removed memory
	// class, created and refs are each memory's attributes. Its class
	// indexes classes, the distinct sets of its low-cardinality attributes
	// (agent, type, kind, durability, archived, pending; 0 is a removed
	// memory's, which no filter matches); refs are its room, entity,
	// session, document, world and audience as indexes into syms (0 for
	// none: an org has as many audiences as rooms and end users, too many
	// to multiply the classes by). A search
	// decides a filter once per class and compares refs as integers: at
	// 100,000 memories the scan read a ~170-byte attribute struct per
	// memory, 17 MB beside the 38 MB of int8 vectors.
	class   []uint32
	created []int64
	refs    [][nrefs]uint32
	classes []memory.Attrs
	members []int // live memories by class
	classOf map[classKey]uint32
	// metaOf indexes each memory's metadata pairs (memory.MetadataPairs) in
	// metas, 0 (nil) for none: most memories have none, and a slice per
	// memory was 24 bytes each.
	metaOf []uint32
	metas  [][]string
	syms   []string
	symOf  map[string]uint32
	length []uint32 // tokens
	// termIDs holds the term ids of every memory, to maintain document
	// frequencies: ord's are termIDs[termEnd[ord-1]:termEnd[ord]] (termsOf).
	// One array for all, where a slice per memory cost a 24-byte header and
	// an allocation each; a removed memory's stay until compaction.
	termIDs []uint32
	termEnd []uint32
	q8      []int8 // the vectors in int8, ordinal * dims (the float32 ones stay in bbolt)
	quants  []quant
	hasVec  []bool
	pos     map[string]uint32

	live, dead, vectors int
	totalLen            uint64 // tokens over live memories
	longest             uint32 // the most tokens of any memory added since the last compaction (bm25.reset)

	dict     map[string]uint32
	postings []postings // by term id
	df       []uint32   // live memories holding the term

	graph *hnsw // the approximate vector index, nil below the threshold (hnsw.go)
	// huge remembers the arrays last put on huge pages (Index.adviseHuge);
	// a compaction's new index starts with its own.
	huge *hugeArrays

	// vis keeps the keyword statistics of each visibility partition
	// (stats.go): the (agent, audience) pairs that decide who may read.
	vis visibilityStats
}

// nrefs is how many references a memory has: room, entity, session,
// document, world and audience, in that order.
const nrefs = 6

// refAudience is the audience's place among a memory's references.
const refAudience = 5

// postings lists the ordinals holding a term, ascending, with the term's
// frequency in each. maxTF and shortest bound any one memory's score for
// the term (keyword.go): shortest[i] is the shortest memory ever added to
// the list with frequency i+1 (the last bucket: tfBuckets or more, bounded
// by maxTF), 0 when none was. BM25's term factor rises with the frequency
// and falls with the length, so the best of the buckets is the list's
// greatest factor whatever the average length, where the greatest
// frequency paired with the shortest memory would count a pair that no
// memory has. A removal leaves them looser, never wrong, and compaction
// recomputes them.
type postings struct {
	docs     []uint32
	tfs      []tfLen // each memory's frequency, with its length when both are small (bm25.go)
	maxTF    uint16
	shortest [tfBuckets]uint16 // lengths past 65,535 count as 65,535: a looser bound, never a wrong one
}

// tfBuckets is how many frequencies postings bound apart.
const tfBuckets = 8

// note records a memory of the given length holding the term tf times.
func (p *postings) note(tf uint16, length uint32) {
	i := min(int(tf), tfBuckets) - 1
	l := uint16(min(length, math.MaxUint16))
	if p.shortest[i] == 0 || l < p.shortest[i] {
		p.shortest[i] = l
	}
	p.maxTF = max(p.maxTF, tf)
}

// bound is the greatest BM25 term factor, tf/(tf+norm(length)), that any
// memory of the list can have, norm being the length normalisation.
func (p *postings) bound(n *bm25) float32 {
	var best float32
	for i, l := range p.shortest {
		if l == 0 {
			continue
		}
		tf := float32(i + 1)
		if i == tfBuckets-1 {
			tf = float32(p.maxTF)
		}
		best = max(best, tf/(tf+n.norm(uint32(l))))
	}
	return best
}

func newOrgIndex() *orgIndex {
	return &orgIndex{pos: map[string]uint32{}, dict: map[string]uint32{},
		classes: []memory.Attrs{{}}, classOf: map[classKey]uint32{{}: 0},
		syms: []string{""}, symOf: map[string]uint32{"": 0}, metas: [][]string{nil}, vis: newVisibilityStats(), huge: &hugeArrays{}}
}

// reserve sizes an empty org's slices for n memories of dims dimensions
// (load knows how many there are).
func (o *orgIndex) reserve(n, dims int) {
	o.ids = make([]string, 0, n)
	o.class = make([]uint32, 0, n)
	o.created = make([]int64, 0, n)
	o.refs = make([][nrefs]uint32, 0, n)
	o.metaOf = make([]uint32, 0, n)
	o.length = make([]uint32, 0, n)
	o.termEnd = make([]uint32, 0, n)
	o.q8 = make([]int8, 0, n*dims)
	o.quants = make([]quant, 0, n)
	o.hasVec = make([]bool, 0, n)
	o.pos = make(map[string]uint32, n)
}

// classKey is a class's attributes as a map key.
type classKey struct {
	orgID, agentID    string
	typ               memory.Type
	kind              memory.Kind
	durability        memory.Durability
	archived, pending bool
}

// classify returns the class of a (its low-cardinality attributes),
// adding it if new.
func (o *orgIndex) classify(a memory.Attrs) uint32 {
	k := classKey{a.OrgID, a.AgentID, a.Type, a.Kind, a.Durability, a.Archived, a.Pending}
	if c, ok := o.classOf[k]; ok {
		return c
	}
	a.CreatedAt, a.RoomID, a.EntityID, a.SessionID, a.DocumentID, a.Meta = 0, "", "", "", "", nil
	a.WorldID, a.Audience = "", ""
	a = intern(a)
	c := uint32(len(o.classes))
	o.classes = append(o.classes, a)
	o.classOf[k] = c
	return c
}

// sym returns the index of s in the org's symbol table, adding it if new;
// "" is 0.
func (o *orgIndex) sym(s string) uint32 {
	if i, ok := o.symOf[s]; ok {
		return i
	}
	i := uint32(len(o.syms))
	o.syms = append(o.syms, s)
	o.symOf[s] = i
	return i
}

// attrs returns the attributes of the memory at ord.
func (o *orgIndex) attrs(ord uint32) memory.Attrs {
	a := o.classes[o.class[ord]]
	a.CreatedAt = o.created[ord]
	r := o.refs[ord]
	a.RoomID, a.EntityID, a.SessionID, a.DocumentID = o.syms[r[0]], o.syms[r[1]], o.syms[r[2]], o.syms[r[3]]
	a.WorldID, a.Audience = o.syms[r[4]], o.syms[r[5]]
	a.Meta = o.metas[o.metaOf[ord]]
	return a
}

// matcher decides a filter over one org's memories: once per class, then
// the references and the time range per memory. It is not safe for
// concurrent use; each goroutine of a search takes its own.
type matcher struct {
	o          *orgIndex
	f          memory.Filter // its class part only
	start, end int64
	want       [nrefs - 1]uint32 // room, entity, session, document, world; 0: any
	meta       memory.MetadataFilter
	audiences  bool     // the filter names the audiences it sees (Filter.Audiences)
	noAudience bool     // and then, whether a memory without one passes
	seen       []uint32 // and the audiences (symbols) that pass, ascending
	none       bool     // a wanted reference the org has never seen
	broad      bool     // decided by class alone, and at least half the live memories pass
	verdict    []int8   // by class: 0 undecided, 1 matches, -1 does not
}

func newMatcher(o *orgIndex, f memory.Filter) *matcher {
	m := &matcher{o: o, f: f, start: f.Start, end: f.End, verdict: make([]int8, len(o.classes))}
	for i, s := range [...]string{f.RoomID, f.EntityID, f.SessionID, f.DocumentID, f.WorldID} {
		if s == "" {
			continue
		}
		id, ok := o.symOf[s]
		if !ok {
			m.none = true
		}
		m.want[i] = id
	}
	m.meta = f.Metadata
	if f.Audiences != nil {
		// Which audiences pass is the reference rule's (Filter.Match),
		// decided once per audience the filter names.
		vf := memory.Filter{OrgID: f.OrgID, Audiences: f.Audiences, IncludeArchived: true}
		m.audiences = true
		m.noAudience = vf.Match(memory.Attrs{OrgID: f.OrgID})
		for _, a := range f.Audiences {
			if id, ok := o.symOf[a]; ok && id != 0 && vf.Match(memory.Attrs{OrgID: f.OrgID, Audience: a}) {
				m.seen = append(m.seen, id)
			}
		}
		slices.Sort(m.seen) // a user's reads name up to 2·MaxActingRooms of them
	}
	m.f.Start, m.f.End, m.f.RoomID, m.f.EntityID, m.f.SessionID, m.f.DocumentID, m.f.Metadata = 0, 0, "", "", "", "", nil
	m.f.WorldID, m.f.Audiences = "", nil
	if !m.none && m.want == [nrefs - 1]uint32{} && !m.audiences && len(m.meta) == 0 && m.start == 0 && m.end == 0 {
		passing := 0
		for c := 1; c < len(o.members); c++ {
			if o.members[c] > 0 && m.f.Match(o.classes[c]) {
				passing += o.members[c]
			}
		}
		m.broad = 2*passing >= o.live
	}
	return m
}

// match reports whether the memory at ord passes the filter. A removed
// memory (class 0) passes none, so callers need not read its id: at a
// million memories that read was a cache miss per candidate of keyword
// search (ids are 16-byte string headers; classes are 4 bytes).
func (m *matcher) match(ord int) bool {
	c := m.o.class[ord]
	if m.none || c == 0 {
		return false
	}
	v := m.verdict[c]
	if v == 0 {
		v = -1
		if m.f.Match(m.o.classes[c]) {
			v = 1
		}
		m.verdict[c] = v
	}
	if v < 0 {
		return false
	}
	if m.want != [nrefs - 1]uint32{} {
		r := &m.o.refs[ord]
		for i, w := range m.want {
			if w != 0 && r[i] != w {
				return false
			}
		}
	}
	if m.audiences {
		if a := m.o.refs[ord][refAudience]; a == 0 {
			if !m.noAudience {
				return false
			}
		} else if _, ok := slices.BinarySearch(m.seen, a); !ok {
			return false
		}
	}
	if len(m.meta) > 0 && !m.meta.Match(m.o.metas[m.o.metaOf[ord]]) {
		return false
	}
	if m.start == 0 && m.end == 0 {
		return true
	}
	t := m.o.created[ord]
	return (m.start == 0 || t >= m.start) && (m.end == 0 || t < m.end)
}

// add appends d under id, which must not be present.
func (o *orgIndex) add(id string, d *doc, dims int) {
	ord := uint32(len(o.ids))
	if want := int(ord) * dims; len(o.q8) < want { // dims learned after keyword-only memories
		o.q8 = append(o.q8, make([]int8, want-len(o.q8))...)
	}
	o.pos[id] = ord
	o.ids = append(o.ids, id)
	c := o.classify(d.attrs)
	o.class = append(o.class, c)
	for len(o.members) < len(o.classes) {
		o.members = append(o.members, 0)
	}
	o.members[c]++
	o.created = append(o.created, d.attrs.CreatedAt)
	var mi uint32
	if len(d.attrs.Meta) > 0 {
		mi = uint32(len(o.metas))
		o.metas = append(o.metas, internAll(d.attrs.Meta))
	}
	o.metaOf = append(o.metaOf, mi)
	o.refs = append(o.refs, [nrefs]uint32{o.sym(d.attrs.RoomID), o.sym(d.attrs.EntityID), o.sym(d.attrs.SessionID), o.sym(d.attrs.DocumentID),
		o.sym(d.attrs.WorldID), o.sym(d.attrs.Audience)})
	o.length = append(o.length, d.length)
	o.longest = max(o.longest, d.length)
	from := len(o.termIDs)
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
		e := packTFLen(d.tfs[i], d.length)
		p.tfs = append(p.tfs, e)
		p.note(e.tf(), d.length)
		o.df[tid]++
		o.termIDs = append(o.termIDs, tid)
	}
	o.termEnd = append(o.termEnd, uint32(len(o.termIDs)))
	o.vis.add(o.vis.partition(d.attrs.AgentID, d.attrs.Audience), o.termIDs[from:], d.length)
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

// termsOf returns the term ids of the memory at ord.
func (o *orgIndex) termsOf(ord uint32) []uint32 {
	var from uint32
	if ord > 0 {
		from = o.termEnd[ord-1]
	}
	return o.termIDs[from:o.termEnd[ord]:o.termEnd[ord]]
}

// remove drops id if present, compacting when holes outnumber live
// memories.
func (o *orgIndex) remove(id string, dims int) {
	ord, ok := o.pos[id]
	if !ok {
		return
	}
	delete(o.pos, id)
	tids := o.termsOf(ord)
	for _, tid := range tids {
		o.df[tid]--
	}
	c := o.class[ord]
	o.vis.remove(o.vis.partition(o.classes[c].AgentID, o.syms[o.refs[ord][refAudience]]), tids, o.length[ord])
	if o.hasVec[ord] {
		o.vectors--
	}
	o.members[c]--
	o.metas[o.metaOf[ord]] = nil // 0's is nil already
	o.ids[ord], o.class[ord], o.hasVec[ord], o.metaOf[ord] = "", 0, false, 0
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
		d := &doc{attrs: o.attrs(uint32(ord)), length: o.length[ord]}
		for _, tid := range o.termsOf(uint32(ord)) {
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
	n.trim()
	*o = *n
}

// trim gives the keyword lists and the term ids the room they hold and no
// more. A load and a compaction build them by appending, which leaves each
// up to twice its length (the postings' capacity was 1.27 times their
// length at 100,000 memories); writes after it grow them again.
func (o *orgIndex) trim() {
	clip := func(p *postings) {
		if cap(p.docs) > len(p.docs) {
			p.docs, p.tfs = slices.Clone(p.docs), slices.Clone(p.tfs)
		}
	}
	for i := range o.postings {
		clip(&o.postings[i])
	}
	if cap(o.termIDs) > len(o.termIDs) {
		o.termIDs = slices.Clone(o.termIDs)
	}
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
	return p.tfs[lo].tf()
}

// intern returns a with its strings made canonical (unique.Make): the
// org's entries then share one copy of each org id, agent id, type, room...
// The exact scan matches every entry's attributes against the filter, and
// with a copy per entry each comparison was a cache miss: at 100,000
// memories the filter cost more than the int8 scoring (8 of 13 ms).
func intern(a memory.Attrs) memory.Attrs {
	in := func(s string) string { return unique.Make(s).Value() }
	a.OrgID, a.AgentID, a.RoomID, a.EntityID = in(a.OrgID), in(a.AgentID), in(a.RoomID), in(a.EntityID)
	a.WorldID, a.Audience = in(a.WorldID), in(a.Audience)
	a.SessionID, a.DocumentID = in(a.SessionID), in(a.DocumentID)
	a.Type, a.Kind, a.Durability = memory.Type(in(string(a.Type))), memory.Kind(in(string(a.Kind))), memory.Durability(in(string(a.Durability)))
	a.Meta = internAll(a.Meta)
	return a
}

// internAll returns ss with each string made canonical; nil for none.
func internAll(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = unique.Make(s).Value()
	}
	return out
}
