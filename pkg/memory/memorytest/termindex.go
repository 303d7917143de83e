package memorytest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/termkit"
)

// TermIndexStore is a store that also keeps the knowledge index: Put only
// indexes memories the store holds.
type TermIndexStore interface {
	memory.Store
	memory.TermIndex
}

// Poison returns a ref that makes s fail a Put after the Put has started
// writing (an adapter-specific fault: a trigger, an item too large), so that
// the suite can check that a failed Put leaves the old knowledge. It is
// given the ordinal the ref must have.
type Poison func(t *testing.T, s TermIndexStore, ordinal int) memory.SemanticRef

// Knowledge vocabulary of the fixture: mixed case, multi-word, accented and
// CJK names, so that normalization, word terms and bytewise prefixes are
// exercised. It is small enough (well under 200 terms) that every adapter
// ranks prefix completions exactly.
var (
	kNames   = []string{"Ana", "Bo Chen", "Zoë", "東京", "New York", "Ana Lima", "Ålesund", "Dr. Who"}
	kTypes   = []string{"person", "city", "place", "club", "show"}
	kFacets  = []string{"color", "diet", "mood"}
	kValues  = []string{"blue", "vegetarian", "Grün", "dark blue"}
	kVerbs   = []string{"like", "move", "visit", "play"}
	kTopics  = []string{"hiking in the mountains", "jazz music", "café culture", "Tokyo trip"}
	kTags    = []string{"travel", "music", "food"}
	kParams  = []string{"yesterday", "next week"}
	kTenses  = []string{memory.TensePast, memory.TensePresent, memory.TenseFuture}
	kPrefixs = []string{"", "a", "an", "ana", "b", "d", "m", "t", "z", "zo", "zoë", "東", "å", "new ", "v", "x"}
)

// KnowledgeOf returns deterministic, varied knowledge for the i-th memory
// of a fixture: one or two entities with types and facets (a quantity
// now and then), an action, a topic and sometimes a tag.
func KnowledgeOf(i int) memory.Knowledge {
	n := len(kNames)
	e := memory.Entity{Name: kNames[i%n], Types: []string{kTypes[i%5], kTypes[(i/5)%5]},
		Facets: []memory.Facet{{Name: kFacets[i%3], Value: kValues[i%4]}}}
	if i%5 == 0 {
		e.Facets = append(e.Facets, memory.Facet{Name: "age", Quantity: &memory.Quantity{Amount: float64(i%4 + 1), Units: "years"}})
	}
	k := memory.Knowledge{Entities: []memory.Entity{e}}
	if i%2 == 0 {
		k.Entities = append(k.Entities, memory.Entity{Name: kNames[(i+3)%n], Types: []string{kTypes[(i+1)%5]}})
	}
	a := memory.Action{Verbs: []string{kVerbs[i%4]}, Tense: kTenses[i%3], Subject: kNames[i%n], Object: kNames[(i+1)%n]}
	if i%3 == 0 {
		a.Params = []memory.ActionParam{{Name: "when", Value: kParams[i%2]}}
		a.SubjectFacet = &memory.Facet{Name: "likes", Value: kTopics[i%4]}
	}
	k.Actions = []memory.Action{a}
	k.Topics = []string{kTopics[i%4]}
	if i%2 == 1 {
		k.Tags = []string{kTags[i%3]}
	}
	if i%3 == 1 { // a topic sentence, listed under itself, indexed by its words
		k.TopicSentence = kNames[i%n] + " talks about " + kTopics[i%4] + "."
	}
	return k
}

// TermIndexSuite runs the TermIndex contract against stores made by open;
// each subtest gets a fresh, empty store. poison may be nil, which skips the
// case of a Put that fails half way.
func TermIndexSuite(t *testing.T, open func(t *testing.T) TermIndexStore, poison Poison) {
	ctx := context.Background()
	all := func(org string) memory.Filter { return memory.Filter{OrgID: org} }

	t.Run("put, look up, load, replace", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 6)
		for i, m := range ms {
			w.put(m, KnowledgeOf(i))
		}
		w.check(OrgA, all(OrgA))
		// Every ref round-trips, whatever the term it is found by.
		keys := w.keys(OrgA)
		got, err := w.s.Refs(ctx, OrgA, append(keys, memory.RefKey{MemoryID: ms[0].ID, Ordinal: 99}, memory.RefKey{MemoryID: "no-such", Ordinal: 0}))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(keys) {
			t.Fatalf("refs: %d loaded, want %d", len(got), len(keys))
		}
		for _, k := range keys {
			if want := w.ref(k); !reflect.DeepEqual(got[k], want) {
				t.Fatalf("ref %v:\n got %+v\nwant %+v", k, got[k], want)
			}
		}
		w.checkRefNames(OrgA, append(keys, memory.RefKey{MemoryID: ms[0].ID, Ordinal: 99}, memory.RefKey{MemoryID: "no-such", Ordinal: 0}))
		st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{ms[0].ID, ms[1].ID, "no-such"})
		if err != nil || len(st) != 2 || st[ms[0].ID].State != memory.KnowledgeDone || st[ms[0].ID].Extractor != "test/1" ||
			st[ms[0].ID].Refs != len(w.refs[ms[0].ID]) || st[ms[0].ID].UpdatedAt == 0 || st[ms[1].ID].MemoryID != ms[1].ID {
			t.Fatalf("status: %+v %v", st, err)
		}
		// Replacing drops the old terms and refs and counts the new ones.
		w.put(ms[0], memory.Knowledge{Topics: []string{"Quantum Physics"}})
		w.check(OrgA, all(OrgA))
		if got, err := w.s.Refs(ctx, OrgA, []memory.RefKey{{MemoryID: ms[0].ID, Ordinal: 1}}); err != nil || len(got) != 0 {
			t.Fatalf("a replaced ref is still loaded: %+v %v", got, err)
		}
		w.expectTerm(all(OrgA), "quantum physics", 1)
		w.expectTerm(all(OrgA), "physics", 1)
		// An empty Put records "extracted, nothing found".
		w.put(ms[1], memory.Knowledge{})
		w.check(OrgA, all(OrgA))
		st, err = w.s.KnowledgeStatus(ctx, OrgA, []string{ms[1].ID})
		if err != nil || st[ms[1].ID].State != memory.KnowledgeDone || st[ms[1].ID].Refs != 0 {
			t.Fatalf("status after an empty put: %+v %v", st, err)
		}
	})

	t.Run("a batch put is each memory's put, and skips forgotten memories", func(t *testing.T) {
		w := newKWorld(t, open(t))
		b, ok := w.s.(memory.KnowledgeBatcher)
		if !ok {
			t.Skip("the term index does not take batches")
		}
		ms := w.create(OrgA, 8)
		w.put(ms[0], KnowledgeOf(9)) // replaced by the batch below
		w.del(OrgA, ms[7].ID)
		if err := w.s.Delete(ctx, OrgA, ms[7].ID); err != nil { // forgotten before its knowledge lands
			t.Fatal(err)
		}
		other := w.create(OrgB, 1)
		var puts []memory.KnowledgePut
		for i, m := range ms {
			puts = append(puts, memory.KnowledgePut{MemoryID: m.ID, Attrs: m.Attrs(), Refs: KnowledgeOf(i).Refs(m.ID)})
		}
		// A memory twice: the last put wins.
		puts = append(puts, memory.KnowledgePut{MemoryID: ms[1].ID, Attrs: ms[1].Attrs(), Refs: KnowledgeOf(4).Refs(ms[1].ID)})
		// Another org's memory, named in org A's batch, is not A's: skipped.
		puts = append(puts, memory.KnowledgePut{MemoryID: other[0].ID, Attrs: memory.Attrs{}, Refs: KnowledgeOf(1).Refs(other[0].ID)})
		written, err := b.PutKnowledgeMany(ctx, OrgA, "test/1", puts)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, m := range ms[:7] {
			want = append(want, m.ID)
		}
		if !reflect.DeepEqual(written, want) {
			t.Fatalf("written %v, want %v", written, want)
		}
		for i, m := range ms[:7] {
			k := KnowledgeOf(i)
			if i == 1 {
				k = KnowledgeOf(4)
			}
			refs := k.Refs(m.ID)
			if len(refs) > memory.MaxRefsPerMemory {
				refs = refs[:memory.MaxRefsPerMemory]
			}
			w.mems[m.ID], w.refs[m.ID], w.done[m.ID], w.extractor[m.ID] = m, refs, true, "test/1"
		}
		w.check(OrgA, all(OrgA))
		w.check(OrgB, all(OrgB))
		if st, err := w.s.KnowledgeStatus(ctx, OrgB, []string{other[0].ID}); err != nil || len(st) != 0 {
			t.Fatalf("org B's memory got a status from org A's batch: %+v %v", st, err)
		}
		if got, err := w.s.Refs(ctx, OrgA, []memory.RefKey{{MemoryID: ms[7].ID, Ordinal: 0}}); err != nil || len(got) != 0 {
			t.Fatalf("a forgotten memory's knowledge was written: %+v %v", got, err)
		}
		// Bad input names the put at fault and writes nothing.
		bad := []memory.KnowledgePut{{MemoryID: ms[0].ID, Attrs: ms[0].Attrs(), Refs: KnowledgeOf(2).Refs(ms[0].ID)},
			{MemoryID: "", Attrs: ms[1].Attrs()}}
		if _, err := b.PutKnowledgeMany(ctx, OrgA, "test/1", bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("a put without memory id: %v, want EINVALID", err)
		}
		w.check(OrgA, all(OrgA))
	})

	t.Run("filters follow Filter.Match", func(t *testing.T) {
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 42)
		for _, c := range Filters() {
			if len(c.F.Metadata) > 0 {
				continue // term indexes do not apply metadata (see memory.TermIndex)
			}
			t.Run(c.Name, func(t *testing.T) {
				f := c.F
				f.OrgID = OrgA
				w.check(OrgA, f)
			})
		}
	})

	t.Run("orgs never see each other", func(t *testing.T) {
		w := newKWorld(t, open(t))
		a := w.create(OrgA, 4)
		b := w.create(OrgB, 1)
		for i, m := range a {
			w.put(m, KnowledgeOf(i))
		}
		w.put(b[0], memory.Knowledge{Entities: []memory.Entity{{Name: "Bo Chen", Types: []string{"person"}}}})
		w.check(OrgA, all(OrgA))
		w.check(OrgB, all(OrgB))
		if got, err := w.s.Refs(ctx, OrgB, w.keys(OrgA)); err != nil || len(got) != 0 {
			t.Fatalf("org b loads org a's refs: %v %v", got, err)
		}
		if rn, ok := w.s.(memory.RefNamer); ok {
			if got, err := rn.RefNames(ctx, OrgB, w.keys(OrgA)); err != nil || len(got) != 0 {
				t.Fatalf("org b loads the names of org a's refs: %v %v", got, err)
			}
		}
		if got, err := w.s.KnowledgeStatus(ctx, OrgB, []string{a[0].ID}); err != nil || len(got) != 0 {
			t.Fatalf("org b reads org a's status: %v %v", got, err)
		}
		if voc := w.vocabulary(OrgB, 1000); !reflect.DeepEqual(voc, []string{"bo", "bo chen", "chen", "person"}) {
			t.Fatalf("org b's vocabulary: %q", voc)
		}
		// Writes from org b do not touch org a's knowledge.
		if err := w.s.PutKnowledge(ctx, OrgB, a[0].ID, b[0].Attrs(), "test/1", nil); !memory.IsNotFound(err) {
			t.Fatalf("org b puts knowledge on org a's memory: %v", err)
		}
		if err := w.s.SetKnowledgeAttrs(ctx, OrgB, a[1].ID, memory.Attrs{OrgID: OrgB, Archived: true}); err != nil {
			t.Fatal(err)
		}
		if err := w.s.DeleteKnowledge(ctx, OrgB, []string{a[2].ID}); err != nil {
			t.Fatal(err)
		}
		if err := w.s.MarkKnowledgePending(ctx, OrgB, []string{a[3].ID}); err != nil {
			t.Fatal(err)
		}
		w.check(OrgA, all(OrgA))
		if p, err := w.s.PendingKnowledge(ctx, OrgA, "", 0); err != nil || len(p) != 0 {
			t.Fatalf("org b marked org a's memory pending: %v %v", p, err)
		}
		if p, err := w.s.PendingKnowledge(ctx, OrgB, "", 0); err != nil || len(p) != 0 {
			t.Fatalf("org b's pending list holds another org's memory: %v %v", p, err)
		}
	})

	t.Run("an agent-bound viewer sees the org scope and its own agent only", func(t *testing.T) {
		w := newKWorld(t, open(t))
		mk := func(agent, name string) *memory.Memory {
			w.n++
			m := New(OrgA, agent, memory.TypeMessage, "about "+name, Base+int64(w.n))
			w.createMemories(m)
			w.put(m, memory.Knowledge{Entities: []memory.Entity{{Name: name, Types: []string{"secret"},
				Facets: []memory.Facet{{Name: "owner", Value: agent + "x"}}}}, Topics: []string{name + " plans"}})
			return m
		}
		mk("", "Shared Thing")
		mk(AgentX, "Xavier")
		mk(AgentY, "Yolanda")
		mk(AgentY, "Shared Thing")
		for _, f := range []memory.Filter{
			{OrgID: OrgA, Viewer: AgentX}, {OrgID: OrgA, Viewer: AgentY}, {OrgID: OrgA},
			{OrgID: OrgA, Viewer: AgentX, AgentID: AgentY}, {OrgID: OrgA, Viewer: AgentX, AgentID: memory.OrgScope},
			{OrgID: OrgA, AgentID: AgentY},
		} {
			w.check(OrgA, f)
		}
		x := memory.Filter{OrgID: OrgA, Viewer: AgentX}
		w.expectTerm(x, "yolanda", 0)
		w.expectTerm(x, "xavier", 2) // the entity, and a word of the topic "Xavier plans"
		w.expectTerm(x, "shared thing", 1)
		w.expectTerm(memory.Filter{OrgID: OrgA}, "shared thing", 2)
		if ps := w.lookup(memory.TermLookup{Filter: x, Terms: []string{"yolanda", "secret"}}); len(ps) != 2 {
			t.Fatalf("viewer x finds %d postings of secret, want 2 (org scope and its own): %+v", len(ps), ps)
		}
	})

	t.Run("archive and move with SetAttrs", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 5)
		for i, m := range ms {
			w.put(m, KnowledgeOf(i))
		}
		archived := *ms[0]
		archived.Archived = true
		w.setAttrs(&archived)
		moved := *ms[1]
		moved.AgentID, moved.RoomID, moved.CreatedAt = AgentY, "room-9", Base-1000
		w.setAttrs(&moved)
		for _, f := range []memory.Filter{
			{OrgID: OrgA}, {OrgID: OrgA, IncludeArchived: true}, {OrgID: OrgA, Viewer: AgentX},
			{OrgID: OrgA, Viewer: AgentY, IncludeArchived: true}, {OrgID: OrgA, RoomID: "room-9"},
			{OrgID: OrgA, End: Base}, {OrgID: OrgA, AgentID: AgentY},
		} {
			w.check(OrgA, f)
		}
		// Back again: the counts return.
		w.setAttrs(ms[0])
		w.check(OrgA, all(OrgA))
		// No knowledge yet: nothing to update, not an error.
		fresh := w.create(OrgA, 1)[0]
		if err := w.s.SetKnowledgeAttrs(ctx, OrgA, fresh.ID, fresh.Attrs()); err != nil {
			t.Fatal(err)
		}
		if st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{fresh.ID}); err != nil || len(st) != 0 {
			t.Fatalf("SetAttrs created a status: %v %v", st, err)
		}
	})

	t.Run("delete forgets everything, and a late put cannot bring it back", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 4)
		for i, m := range ms {
			w.put(m, KnowledgeOf(i))
		}
		if err := w.s.MarkKnowledgePending(ctx, OrgA, []string{ms[1].ID}); err != nil {
			t.Fatal(err)
		}
		gone := w.keys(OrgA)
		w.del(OrgA, ms[0].ID, ms[1].ID, "never-existed")
		w.check(OrgA, all(OrgA))
		got, err := w.s.Refs(ctx, OrgA, gone)
		if err != nil {
			t.Fatal(err)
		}
		for k := range got {
			if k.MemoryID == ms[0].ID || k.MemoryID == ms[1].ID {
				t.Fatalf("ref %v of a deleted memory is still loaded", k)
			}
		}
		if st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{ms[0].ID, ms[1].ID}); err != nil || len(st) != 0 {
			t.Fatalf("status of deleted memories: %v %v", st, err)
		}
		if p, err := w.s.PendingKnowledge(ctx, OrgA, "", 0); err != nil || len(p) != 0 {
			t.Fatalf("a deleted memory is still pending: %v %v", p, err)
		}
		// The memory itself is forgotten; an extraction that finishes
		// afterwards is refused.
		if err := w.s.Delete(ctx, OrgA, ms[2].ID); err != nil {
			t.Fatal(err)
		}
		w.del(OrgA, ms[2].ID)
		if err := w.s.PutKnowledge(ctx, OrgA, ms[2].ID, ms[2].Attrs(), "test/1", KnowledgeOf(2).Refs(ms[2].ID)); !memory.IsNotFound(err) {
			t.Fatalf("put after the memory was deleted: %v, want not found", err)
		}
		if err := w.s.MarkKnowledgePending(ctx, OrgA, []string{ms[2].ID}); err != nil {
			t.Fatal(err)
		}
		if p, err := w.s.PendingKnowledge(ctx, OrgA, "", 0); err != nil || len(p) != 0 {
			t.Fatalf("a deleted memory was marked pending: %v %v", p, err)
		}
		w.check(OrgA, all(OrgA))
		// Deleting everything empties the vocabulary.
		w.del(OrgA, ms[3].ID)
		if voc := w.vocabulary(OrgA, 1000); len(voc) != 0 {
			t.Fatalf("vocabulary after deleting every memory: %q", voc)
		}
	})

	t.Run("an entity's memories", func(t *testing.T) {
		// The knowledge list scopes a question that names one entity to
		// that entity's memories (Filter.EntityID): lookups, counts,
		// completion and lists answer within it, alone and with a view.
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 24)
		for _, f := range []memory.Filter{
			{OrgID: OrgA, EntityID: "bob"}, {OrgID: OrgA, EntityID: "alice", Viewer: AgentX},
			{OrgID: OrgA, EntityID: "carol", IncludeArchived: true}, {OrgID: OrgA, EntityID: "nobody"},
		} {
			w.check(OrgA, f)
		}
	})

	t.Run("prefix completion ranks by count, bytewise, in Unicode", func(t *testing.T) {
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 24)
		for _, lim := range []int{0, 1, 3, memory.MaxTermPrefixResult} {
			for _, f := range []memory.Filter{all(OrgA), {OrgID: OrgA, Viewer: AgentX}, {OrgID: OrgA, Viewer: AgentY, IncludeArchived: true},
				{OrgID: OrgA, AgentID: memory.OrgScope}, {OrgID: OrgA, SessionID: "s1"}} {
				for _, p := range kPrefixs {
					w.checkTerms(f, p, lim)
				}
			}
		}
		got, err := w.s.Terms(ctx, all(OrgA), "zo", 0)
		if err != nil || len(got) == 0 || got[0].Term != "zoë" {
			t.Fatalf("completion of zo: %+v %v", got, err)
		}
		got, err = w.s.Terms(ctx, all(OrgA), "東", 0)
		if err != nil || len(got) != 1 || got[0].Term != "東京" || got[0].Count == 0 {
			t.Fatalf("completion of 東: %+v %v", got, err)
		}
		for _, c := range []struct {
			prefix string
			limit  int
		}{{"a\x01", 10}, {"a", -1}, {"a", memory.MaxTermPrefixResult + 1}, {strings.Repeat("a", memory.MaxTermBytes+1), 10}, {"\xff", 10}} {
			if _, err := w.s.Terms(ctx, all(OrgA), c.prefix, c.limit); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("terms %q limit %d: %v, want invalid", c.prefix, c.limit, err)
			}
		}
		if _, err := w.s.Terms(ctx, memory.Filter{}, "a", 10); err == nil {
			t.Fatal("terms without an org succeeded")
		}
	})

	t.Run("completion sums the org scope and the viewer's agent", func(t *testing.T) {
		// "pt" is fourth in each scope and first in their sum: an adapter
		// that ranks each scope's top terms must still find it.
		w := newKWorld(t, open(t))
		for _, c := range []struct {
			agent  string
			topics []string
			times  int
		}{
			{"", []string{"pxa", "pxb", "pxc", "pxd", "pxe"}, 5}, {"", []string{"pt"}, 4},
			{AgentX, []string{"pya", "pyb", "pyc", "pyd", "pye"}, 5}, {AgentX, []string{"pt"}, 4},
			{AgentY, []string{"pt", "pz"}, 9},
		} {
			for i := 0; i < c.times; i++ {
				w.n++
				m := New(OrgA, c.agent, memory.TypeFact, fmt.Sprintf("fact %d", w.n), Base+int64(w.n))
				w.createMemories(m)
				w.put(m, memory.Knowledge{Topics: c.topics})
			}
		}
		x := memory.Filter{OrgID: OrgA, Viewer: AgentX}
		got, err := w.s.Terms(ctx, x, "p", 1)
		if err != nil || len(got) != 1 || got[0] != (memory.TermCount{Term: "pt", Count: 8}) {
			t.Fatalf("top completion of p for viewer x: %v %v, want pt 8", got, err)
		}
		for _, lim := range []int{1, 2, 6, 20} {
			for _, f := range []memory.Filter{x, {OrgID: OrgA, Viewer: AgentY}, all(OrgA)} {
				w.checkTerms(f, "p", lim)
				w.checkTerms(f, "", lim)
			}
		}
	})

	t.Run("properties", func(t *testing.T) {
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 21)
		props := w.properties(OrgA)
		if len(props) < 8 {
			t.Fatalf("the fixture has only %d properties", len(props))
		}
		found := false
		for _, p := range props {
			found = found || p == memory.Property{Name: "age", Value: "2 years"}
			for _, f := range []memory.Filter{all(OrgA), {OrgID: OrgA, Viewer: AgentX}, {OrgID: OrgA, Types: []memory.Type{memory.TypeFact}}} {
				for _, lim := range []int{0, 2} {
					w.checkProperty(memory.PropertyLookup{Filter: f, Name: p.Name, Value: p.Value, Limit: lim})
				}
			}
		}
		if !found {
			t.Fatalf("quantity facets are not indexed as properties: %v", props)
		}
		if ps := w.lookupProperty(memory.PropertyLookup{Filter: all(OrgA), Name: "color", Value: "nope"}); len(ps) != 0 {
			t.Fatalf("absent value: %+v", ps)
		}
		for _, q := range []memory.PropertyLookup{
			{Filter: all(OrgA), Name: "", Value: "blue"}, {Filter: all(OrgA), Name: "color", Value: ""},
			{Filter: all(OrgA), Name: "Color", Value: "blue"}, {Filter: all(OrgA), Name: "color", Value: "blue", Limit: -1},
		} {
			if _, err := w.s.LookupProperty(ctx, q); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("property %+v: %v, want invalid", q, err)
			}
		}
	})

	t.Run("list pages by name with counts, types and facets", func(t *testing.T) {
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 30)
		for _, kind := range memory.KnowledgeKinds {
			for _, f := range []memory.Filter{all(OrgA), {OrgID: OrgA, Viewer: AgentX}, {OrgID: OrgA, RoomID: "room-2", IncludeArchived: true}} {
				for _, lim := range []int{1, 3, 0} {
					for _, prefix := range []string{"", "a", "zo", "東"} {
						w.checkList(memory.KnowledgeListQuery{Filter: f, Kind: kind, Limit: lim, Prefix: prefix})
					}
				}
			}
		}
		// A name mentioned more than MaxListMerge times: its facets are
		// merged from the newest refs.
		many := make([]*memory.Memory, memory.MaxListMerge+12)
		for i := range many {
			many[i] = New(OrgA, agents[i%3], memory.TypeMessage, fmt.Sprintf("ana said %d", i), Base+int64(i%50)*1000)
		}
		w.createMemories(many...)
		for i, m := range many {
			w.put(m, memory.Knowledge{Entities: []memory.Entity{{Name: "Ana", Types: []string{fmt.Sprintf("t%03d", i%70)},
				Facets: []memory.Facet{{Name: "serial", Value: fmt.Sprint(i)}}}}})
		}
		for _, f := range []memory.Filter{all(OrgA), {OrgID: OrgA, Viewer: AgentY}} {
			w.checkList(memory.KnowledgeListQuery{Filter: f, Kind: memory.KnowledgeEntity, Prefix: "ana"})
		}
		page, err := w.s.ListKnowledge(ctx, memory.KnowledgeListQuery{Filter: all(OrgA), Kind: memory.KnowledgeEntity, Prefix: "ana"})
		if err != nil || len(page.Items) != 2 || page.Items[0].Name != "ana" || page.Items[1].Name != "ana lima" ||
			len(page.Items[0].Types) == 0 || len(page.Items[0].Facets) == 0 || page.Items[0].Memories == 0 || page.Next != "" {
			t.Fatalf("entities named ana*: %+v %v", page, err)
		}
		for _, q := range []memory.KnowledgeListQuery{
			{Filter: all(OrgA), Kind: "person"}, {Filter: all(OrgA), Kind: memory.KnowledgeTopic, Cursor: "!!"},
			{Filter: all(OrgA), Kind: memory.KnowledgeTopic, Limit: memory.MaxKnowledgePage + 1},
		} {
			if _, err := w.s.ListKnowledge(ctx, q); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("list %+v: %v, want invalid", q, err)
			}
		}
	})

	t.Run("pending and status", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 5)
		ids := []string{ms[0].ID, ms[1].ID, ms[2].ID, ms[3].ID}
		if err := w.s.MarkKnowledgePending(ctx, OrgA, append(ids, "not-a-memory")); err != nil {
			t.Fatal(err)
		}
		if err := w.s.MarkKnowledgePending(ctx, OrgA, ids[:1]); err != nil { // redelivered
			t.Fatal(err)
		}
		w.expectPending(OrgA, ids...)
		p, err := w.s.PendingKnowledge(ctx, OrgA, ids[1], 2)
		if err != nil || len(p) != 2 || p[0].MemoryID != ids[2] || p[1].MemoryID != ids[3] || p[0].State != memory.KnowledgePending {
			t.Fatalf("pending after %s: %+v %v", ids[1], p, err)
		}
		// Done once put, with or without knowledge.
		w.put(ms[0], KnowledgeOf(0))
		w.put(ms[1], memory.Knowledge{})
		w.expectPending(OrgA, ids[2], ids[3])
		// Pending again for a re-extraction: the old knowledge is served
		// until it is replaced.
		if err := w.s.MarkKnowledgePending(ctx, OrgA, ids[:1]); err != nil {
			t.Fatal(err)
		}
		w.expectPending(OrgA, ids[0], ids[2], ids[3])
		st, err := w.s.KnowledgeStatus(ctx, OrgA, ids[:1])
		if err != nil || st[ids[0]].State != memory.KnowledgePending || st[ids[0]].Refs != len(w.refs[ids[0]]) || st[ids[0]].Extractor != "test/1" {
			t.Fatalf("status of a memory pending re-extraction: %+v %v", st, err)
		}
		w.check(OrgA, all(OrgA))
		w.put(ms[0], KnowledgeOf(1))
		w.expectPending(OrgA, ids[2], ids[3])
		w.del(OrgA, ids[2])
		w.expectPending(OrgA, ids[3])
		if _, err := w.s.PendingKnowledge(ctx, OrgA, "", memory.MaxKnowledgePage+1); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("pending limit too large: %v", err)
		}
	})

	t.Run("a failed put leaves the old knowledge", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 3)
		for i, m := range ms {
			w.put(m, KnowledgeOf(i))
		}
		bad := KnowledgeOf(5).Refs(ms[0].ID)
		bad[len(bad)-1].Kind = "opinion"
		if err := w.s.PutKnowledge(ctx, OrgA, ms[0].ID, ms[0].Attrs(), "test/2", bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("put of a bad ref: %v, want invalid", err)
		}
		w.check(OrgA, all(OrgA))
		if poison == nil {
			t.Log("no poison for this adapter: the mid-write failure is not exercised")
			return
		}
		// Many refs, so that an adapter writing in batches has written some
		// before the poison fails.
		var refs []memory.SemanticRef
		for i := 0; len(refs) < 60; i++ {
			for _, r := range KnowledgeOf(i + 7).Refs(ms[1].ID) {
				r.Ordinal = len(refs)
				r.Topic = strings.ReplaceAll(r.Topic, "o", "0") // new terms, visible if they leak
				refs = append(refs, r)
			}
		}
		refs = append(refs, poison(t, w.s, len(refs)))
		if err := w.s.PutKnowledge(ctx, OrgA, ms[1].ID, ms[1].Attrs(), "test/2", refs); err == nil {
			t.Fatal("the poisoned put succeeded")
		}
		w.check(OrgA, all(OrgA))
		w.check(OrgA, memory.Filter{OrgID: OrgA, Viewer: AgentX, IncludeArchived: true})
		st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{ms[1].ID})
		if err != nil || st[ms[1].ID].Extractor != "test/1" || st[ms[1].ID].Refs != len(w.refs[ms[1].ID]) {
			t.Fatalf("status after a failed put: %+v %v", st, err)
		}
		// The next put succeeds and leaves no trace of the failed one.
		w.put(ms[1], KnowledgeOf(4))
		w.check(OrgA, all(OrgA))
	})

	t.Run("concurrent puts of one memory leave one of them whole", func(t *testing.T) {
		w := newKWorld(t, open(t))
		m := w.create(OrgA, 1)[0]
		const writers = 4
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := 0; i < writers; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				errs[i] = w.s.PutKnowledge(ctx, OrgA, m.ID, m.Attrs(), fmt.Sprintf("writer/%d", i), KnowledgeOf(i).Refs(m.ID))
			}(i)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil && !memory.IsConflict(err) {
				t.Fatalf("writer %d: %v", i, err)
			}
		}
		st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{m.ID})
		if err != nil {
			t.Fatal(err)
		}
		var winner int
		if _, err := fmt.Sscanf(st[m.ID].Extractor, "writer/%d", &winner); err != nil || errs[winner] != nil {
			t.Fatalf("status names writer %q, which did not succeed (%v)", st[m.ID].Extractor, errs)
		}
		w.mems[m.ID], w.refs[m.ID], w.done[m.ID] = m, KnowledgeOf(winner).Refs(m.ID), true
		w.extractor[m.ID] = st[m.ID].Extractor
		w.check(OrgA, all(OrgA))
	})

	t.Run("limits", func(t *testing.T) {
		w := newKWorld(t, open(t))
		ms := w.create(OrgA, 2)
		long := strings.Repeat("x", memory.MaxTermBytes+1)
		w.put(ms[0], memory.Knowledge{Entities: []memory.Entity{{Name: long, Types: []string{"thing"},
			Facets: []memory.Facet{{Name: "size", Value: long}}}}, Topics: []string{"tab\tseparated", "bell\x07word"}})
		w.check(OrgA, all(OrgA))
		if got, err := w.s.Refs(ctx, OrgA, []memory.RefKey{{MemoryID: ms[0].ID, Ordinal: 0}}); err != nil || got[memory.RefKey{MemoryID: ms[0].ID}].Entity.Name != long {
			t.Fatalf("the ref of a long name is kept: %v", err)
		}
		w.expectTerm(all(OrgA), "thing", 1)
		w.expectTerm(all(OrgA), "tab separated", 1)
		w.expectTerm(all(OrgA), "size", 1) // the facet's name; its long value is not indexed
		for _, v := range w.vocabulary(OrgA, 1000) {
			if len(v) > memory.MaxTermBytes || strings.ContainsRune(v, 7) {
				t.Fatalf("vocabulary holds %q", v)
			}
		}
		// Refs beyond MaxRefsPerMemory are dropped.
		var many memory.Knowledge
		for i := 0; i < memory.MaxRefsPerMemory+10; i++ {
			many.Topics = append(many.Topics, fmt.Sprintf("topic %d", i))
		}
		w.put(ms[1], many)
		st, err := w.s.KnowledgeStatus(ctx, OrgA, []string{ms[1].ID})
		if err != nil || st[ms[1].ID].Refs != memory.MaxRefsPerMemory {
			t.Fatalf("status of a memory with too many refs: %+v %v", st, err)
		}
		got, err := w.s.Refs(ctx, OrgA, []memory.RefKey{{MemoryID: ms[1].ID, Ordinal: memory.MaxRefsPerMemory - 1}, {MemoryID: ms[1].ID, Ordinal: memory.MaxRefsPerMemory}})
		if err != nil || len(got) != 1 {
			t.Fatalf("refs around the limit: %d loaded (%v), want 1", len(got), err)
		}
		w.check(OrgA, all(OrgA))

		good := KnowledgeOf(0).Refs(ms[0].ID)
		for _, c := range []struct {
			name  string
			id    string
			attrs memory.Attrs
			refs  func() []memory.SemanticRef
		}{
			{"empty memory id", "", ms[0].Attrs(), nil},
			{"another org's attrs", ms[0].ID, memory.Attrs{OrgID: OrgB}, nil},
			{"refs out of order", ms[0].ID, ms[0].Attrs(), func() []memory.SemanticRef {
				r := append([]memory.SemanticRef(nil), good...)
				r[0].Ordinal = 3
				return r
			}},
			{"ref of another memory", ms[0].ID, ms[0].Attrs(), func() []memory.SemanticRef {
				r := append([]memory.SemanticRef(nil), good...)
				r[1].MemoryID = ms[1].ID
				return r
			}},
			{"entity ref without entity", ms[0].ID, ms[0].Attrs(), func() []memory.SemanticRef {
				return []memory.SemanticRef{{Kind: memory.KnowledgeEntity, Topic: "x"}}
			}},
			{"bad range", ms[0].ID, ms[0].Attrs(), func() []memory.SemanticRef {
				return []memory.SemanticRef{{Kind: memory.KnowledgeTopic, Topic: "x", Range: memory.TextRange{Start: 5, End: 2}}}
			}},
		} {
			var refs []memory.SemanticRef
			if c.refs != nil {
				refs = c.refs()
			}
			if err := w.s.PutKnowledge(ctx, OrgA, c.id, c.attrs, "test/1", refs); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("%s: %v, want invalid", c.name, err)
			}
		}
		terms := make([]string, memory.MaxQueryTerms+1)
		for i := range terms {
			terms[i] = fmt.Sprintf("t%d", i)
		}
		for _, q := range []memory.TermLookup{
			{Filter: all(OrgA), Terms: terms},
			{Filter: all(OrgA)},
			{Filter: all(OrgA), Terms: []string{"Ana"}},
			{Filter: all(OrgA), Terms: []string{long}},
			{Filter: all(OrgA), Terms: []string{"ana"}, Roles: []string{"nickname"}},
			{Filter: all(OrgA), Terms: []string{"ana"}, Limit: memory.MaxTermPostings + 1},
			{Filter: memory.Filter{OrgID: OrgA, Types: []memory.Type{"poem"}}, Terms: []string{"ana"}},
		} {
			if _, err := w.s.LookupTerms(ctx, q); memory.ErrorCode(err) != memory.EINVALID {
				t.Fatalf("lookup %+v: %v, want invalid", q.Terms, err)
			}
		}
		if _, err := w.s.Refs(ctx, OrgA, make([]memory.RefKey, memory.MaxRefKeys+1)); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("too many ref keys: %v", err)
		}
		if _, _, err := w.s.Vocabulary(ctx, OrgA, "", memory.MaxVocabularyPage+1); memory.ErrorCode(err) != memory.EINVALID {
			t.Fatalf("vocabulary limit too large: %v", err)
		}
		// The per-term limit keeps the newest postings.
		w.checkLookup(memory.TermLookup{Filter: all(OrgA), Terms: []string{"topic", "thing"}, Limit: 3})
	})

	t.Run("roles and vocabulary paging", func(t *testing.T) {
		w := newKWorld(t, open(t))
		w.knownCorpus(OrgA, 14)
		for _, roles := range [][]string{{memory.RoleName}, {memory.RoleSubject, memory.RoleObject}, {memory.RoleTopic, memory.RoleTag}, {memory.RoleValue}} {
			w.checkLookup(memory.TermLookup{Filter: all(OrgA), Terms: []string{"ana", "bo", "zoë", "jazz music", "music", "blue", "東京"}, Roles: roles})
		}
		want := w.expectVocabulary(OrgA)
		for _, size := range []int{1, 7, 0} {
			if got := w.vocabulary(OrgA, size); !reflect.DeepEqual(got, want) {
				t.Fatalf("vocabulary in pages of %d:\n got %q\nwant %q", size, got, want)
			}
		}
	})
	termVisibilityCases(t, open)
}

// kWorld is a TermIndexStore beside a model of what it must hold, from
// which every expected answer is computed by the reference semantics
// (Filter.Match, SemanticRef.Terms and Properties).
type kWorld struct {
	t         *testing.T
	s         TermIndexStore
	mems      map[string]*memory.Memory // with the attrs the index was given
	refs      map[string][]memory.SemanticRef
	done      map[string]bool
	extractor map[string]string
	n         int // memories created, for distinct texts
}

func newKWorld(t *testing.T, s TermIndexStore) *kWorld {
	return &kWorld{t: t, s: s, mems: map[string]*memory.Memory{}, refs: map[string][]memory.SemanticRef{},
		done: map[string]bool{}, extractor: map[string]string{}}
}

func (w *kWorld) createMemories(ms ...*memory.Memory) {
	w.t.Helper()
	if _, err := w.s.Create(context.Background(), ms); err != nil {
		w.t.Fatal(err)
	}
}

// create stores n memories of org, spread over agents and rooms.
func (w *kWorld) create(org string, n int) []*memory.Memory {
	w.t.Helper()
	ms := make([]*memory.Memory, n)
	for i := range ms {
		w.n++
		ms[i] = New(org, agents[i%3], memory.TypeMessage, fmt.Sprintf("%s memory %d", org, w.n), Base+int64(w.n)*1000)
		ms[i].RoomID = rooms[i%3]
	}
	w.createMemories(ms...)
	return ms
}

// knownCorpus creates Corpus(org, n) and puts KnowledgeOf(i) for its i-th
// memory.
func (w *kWorld) knownCorpus(org string, n int) []*memory.Memory {
	w.t.Helper()
	corpus := Corpus(org, n)
	w.createMemories(corpus...)
	for i, m := range corpus {
		w.put(m, KnowledgeOf(i))
	}
	return corpus
}

func (w *kWorld) put(m *memory.Memory, k memory.Knowledge) {
	w.t.Helper()
	refs := k.Refs(m.ID)
	if err := w.s.PutKnowledge(context.Background(), m.OrgID, m.ID, m.Attrs(), "test/1", refs); err != nil {
		w.t.Fatalf("put %s: %v", m.ID, err)
	}
	if len(refs) > memory.MaxRefsPerMemory {
		refs = refs[:memory.MaxRefsPerMemory]
	}
	w.mems[m.ID], w.refs[m.ID], w.done[m.ID], w.extractor[m.ID] = m, refs, true, "test/1"
}

func (w *kWorld) setAttrs(m *memory.Memory) {
	w.t.Helper()
	if err := w.s.SetKnowledgeAttrs(context.Background(), m.OrgID, m.ID, m.Attrs()); err != nil {
		w.t.Fatal(err)
	}
	w.mems[m.ID] = m
}

func (w *kWorld) del(org string, ids ...string) {
	w.t.Helper()
	if err := w.s.DeleteKnowledge(context.Background(), org, ids); err != nil {
		w.t.Fatal(err)
	}
	if err := w.s.DeleteKnowledge(context.Background(), org, ids); err != nil { // twice: idempotent
		w.t.Fatal(err)
	}
	for _, id := range ids {
		if m := w.mems[id]; m != nil && m.OrgID == org {
			delete(w.mems, id)
			delete(w.refs, id)
			delete(w.done, id)
		}
	}
}

// visible calls fn for every ref the model holds that f selects.
func (w *kWorld) visible(f memory.Filter, fn func(m *memory.Memory, r memory.SemanticRef)) {
	for id, m := range w.mems {
		if f.Match(m.Attrs()) {
			for _, r := range w.refs[id] {
				fn(m, r)
			}
		}
	}
}

func (w *kWorld) keys(org string) []memory.RefKey {
	var out []memory.RefKey
	w.visible(memory.Filter{OrgID: org, IncludeArchived: true}, func(_ *memory.Memory, r memory.SemanticRef) { out = append(out, r.Key()) })
	return out
}

func (w *kWorld) ref(k memory.RefKey) memory.SemanticRef { return w.refs[k.MemoryID][k.Ordinal] }

func (w *kWorld) lookup(q memory.TermLookup) []memory.TermPosting {
	w.t.Helper()
	got, err := w.s.LookupTerms(context.Background(), q)
	if err != nil {
		w.t.Fatalf("lookup %q: %v", q.Terms, err)
	}
	return got
}

func (w *kWorld) lookupProperty(q memory.PropertyLookup) []memory.PropertyPosting {
	w.t.Helper()
	got, err := w.s.LookupProperty(context.Background(), q)
	if err != nil {
		w.t.Fatalf("property %s=%s: %v", q.Name, q.Value, err)
	}
	return got
}

// expectLookup is the reference answer of a TermLookup.
func (w *kWorld) expectLookup(q memory.TermLookup) []memory.TermPosting {
	lim := q.Limit
	if lim == 0 {
		lim = memory.DefaultTermPostings
	}
	roles := map[string]bool{}
	for _, r := range q.Roles {
		roles[r] = true
	}
	var out []memory.TermPosting
	seen := map[string]bool{}
	for _, term := range q.Terms {
		if seen[term] {
			continue
		}
		seen[term] = true
		var ps []memory.TermPosting
		w.visible(q.Filter, func(m *memory.Memory, r memory.SemanticRef) {
			for _, rt := range memory.IndexedTerms(r) {
				if rt.Term == term && (len(roles) == 0 || roles[rt.Role]) {
					ps = append(ps, memory.TermPosting{Term: term, Role: rt.Role, Ref: r.Key(), Kind: r.Kind, Attrs: termAttrs(m)})
				}
			}
		})
		sort.Slice(ps, func(i, j int) bool {
			a, b := ps[i], ps[j]
			switch {
			case a.Attrs.CreatedAt != b.Attrs.CreatedAt:
				return a.Attrs.CreatedAt > b.Attrs.CreatedAt
			case a.Ref.MemoryID != b.Ref.MemoryID:
				return a.Ref.MemoryID > b.Ref.MemoryID
			case a.Ref.Ordinal != b.Ref.Ordinal:
				return a.Ref.Ordinal > b.Ref.Ordinal
			}
			return a.Role > b.Role
		})
		if len(ps) > lim {
			ps = ps[:lim]
		}
		out = append(out, ps...)
	}
	return out
}

func (w *kWorld) checkLookup(q memory.TermLookup) {
	w.t.Helper()
	got, want := w.lookup(q), w.expectLookup(q)
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		w.t.Fatalf("lookup %q roles %v limit %d filter %+v:\n got %d %+v\nwant %d %+v", q.Terms, q.Roles, q.Limit, q.Filter, len(got), got, len(want), want)
	}
	// KeysOnly: the same postings, in the same order; Kind and Attrs may
	// be left out.
	q.KeysOnly = true
	keys := w.lookup(q)
	if len(keys) != len(want) {
		w.t.Fatalf("lookup %q keys only: %d postings, want %d", q.Terms, len(keys), len(want))
	}
	for i, p := range keys {
		if p.Term != want[i].Term || p.Role != want[i].Role || p.Ref != want[i].Ref {
			w.t.Fatalf("lookup %q keys only, posting %d: %+v, want %+v", q.Terms, i, p, want[i])
		}
	}
}

// expectTerm checks the count of one term for f, by Terms and by the
// model.
func (w *kWorld) expectTerm(f memory.Filter, term string, n int) {
	w.t.Helper()
	got, err := w.s.Terms(context.Background(), f, term, memory.MaxTermPrefixResult)
	if err != nil {
		w.t.Fatal(err)
	}
	count := 0
	for _, tc := range got {
		if tc.Term == term {
			count = tc.Count
		}
	}
	if count != n {
		w.t.Fatalf("count of %q for %+v: %d, want %d (%+v)", term, f, count, n, got)
	}
	w.checkTerms(f, term, 0)
}

func (w *kWorld) expectTerms(f memory.Filter, prefix string, limit int) []memory.TermCount {
	counts := map[string]int{}
	w.visible(f, func(_ *memory.Memory, r memory.SemanticRef) {
		for _, t := range memory.DistinctTerms(r) {
			if strings.HasPrefix(t, prefix) {
				counts[t]++
			}
		}
	})
	var out []memory.TermCount
	for t, n := range counts {
		out = append(out, memory.TermCount{Term: t, Count: n})
	}
	memory.SortTermCounts(out)
	if limit == 0 {
		limit = memory.DefaultTermCompletion
	}
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

func (w *kWorld) checkTerms(f memory.Filter, prefix string, limit int) {
	w.t.Helper()
	got, err := w.s.Terms(context.Background(), f, prefix, limit)
	if err != nil {
		w.t.Fatalf("terms %q: %v", prefix, err)
	}
	if want := w.expectTerms(f, prefix, limit); !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
		w.t.Fatalf("terms %q limit %d filter %+v:\n got %v\nwant %v", prefix, limit, f, got, want)
	}
	w.checkTermCounts(f, prefix)
}

// checkRefNames checks, when the index is a memory.RefNamer, that the
// names of keys are the KnowledgeName of the refs Refs loads, and that
// keys without a ref, or whose ref has no indexable name, are absent.
func (w *kWorld) checkRefNames(org string, keys []memory.RefKey) {
	w.t.Helper()
	rn, ok := w.s.(memory.RefNamer)
	if !ok {
		return
	}
	ctx := context.Background()
	refs, err := w.s.Refs(ctx, org, keys)
	if err != nil {
		w.t.Fatal(err)
	}
	want := map[memory.RefKey]string{}
	for k, r := range refs {
		if n := memory.KnowledgeName(r); n != "" {
			want[k] = n
		}
	}
	if len(want) == 0 {
		w.t.Fatal("ref names: no named ref to check")
	}
	got, err := rn.RefNames(ctx, org, keys)
	if err != nil {
		w.t.Fatalf("ref names: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		w.t.Fatalf("ref names:\n got %v\nwant %v", got, want)
	}
	if _, err := rn.RefNames(ctx, org, make([]memory.RefKey, memory.MaxRefKeys+1)); memory.ErrorCode(err) != memory.EINVALID {
		w.t.Fatalf("ref names of %d keys: %v, want EINVALID", memory.MaxRefKeys+1, err)
	}
}

// checkTermCounts checks, when the index is a memory.TermCounter, that its
// counts of the exact terms under prefix are the completion's counts, and
// that a term nobody used counts 0.
func (w *kWorld) checkTermCounts(f memory.Filter, prefix string) {
	w.t.Helper()
	tc, ok := w.s.(memory.TermCounter)
	if !ok {
		return
	}
	want := map[string]int{"never-used-term": 0}
	terms := []string{"never-used-term"}
	for _, c := range w.expectTerms(f, prefix, memory.MaxTermPrefixResult) {
		if len(terms) < memory.MaxQueryTerms {
			want[c.Term] = c.Count
			terms = append(terms, c.Term)
		}
	}
	got, answered, err := tc.TermCounts(context.Background(), f, terms)
	if err != nil {
		w.t.Fatalf("term counts %q: %v", terms, err)
	}
	if _, counters := termkit.VocabularyScopes(f); answered != counters {
		w.t.Fatalf("term counts answered %v for filter %+v, want %v", answered, f, counters)
	}
	if !answered {
		return
	}
	for _, t := range terms {
		if got[t] != want[t] {
			w.t.Fatalf("term count of %q with filter %+v: %d, want %d", t, f, got[t], want[t])
		}
	}
}

func (w *kWorld) properties(org string) []memory.Property {
	seen := map[memory.Property]bool{}
	var out []memory.Property
	w.visible(memory.Filter{OrgID: org, IncludeArchived: true}, func(_ *memory.Memory, r memory.SemanticRef) {
		for _, p := range memory.IndexedProperties(r) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Name+"\x00"+out[i].Value < out[j].Name+"\x00"+out[j].Value })
	return out
}

func (w *kWorld) checkProperty(q memory.PropertyLookup) {
	w.t.Helper()
	lim := q.Limit
	if lim == 0 {
		lim = memory.DefaultTermPostings
	}
	p := memory.Property{Name: q.Name, Value: q.Value}
	var want []memory.PropertyPosting
	w.visible(q.Filter, func(m *memory.Memory, r memory.SemanticRef) {
		for _, rp := range memory.IndexedProperties(r) {
			if rp == p {
				want = append(want, memory.PropertyPosting{Property: p, Ref: r.Key(), Kind: r.Kind, Attrs: termAttrs(m)})
			}
		}
	})
	sort.Slice(want, func(i, j int) bool {
		a, b := want[i], want[j]
		switch {
		case a.Attrs.CreatedAt != b.Attrs.CreatedAt:
			return a.Attrs.CreatedAt > b.Attrs.CreatedAt
		case a.Ref.MemoryID != b.Ref.MemoryID:
			return a.Ref.MemoryID > b.Ref.MemoryID
		}
		return a.Ref.Ordinal > b.Ref.Ordinal
	})
	if len(want) > lim {
		want = want[:lim]
	}
	got := w.lookupProperty(q)
	if !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
		w.t.Fatalf("property %s=%s limit %d filter %+v:\n got %+v\nwant %+v", q.Name, q.Value, q.Limit, q.Filter, got, want)
	}
}

func (w *kWorld) expectList(q memory.KnowledgeListQuery) []memory.KnowledgeItem {
	builders := map[string]*termkit.KnowledgeBuilder{}
	w.visible(q.Filter, func(m *memory.Memory, r memory.SemanticRef) {
		name := memory.KnowledgeName(r)
		if r.Kind != q.Kind || name == "" || !strings.HasPrefix(name, q.Prefix) {
			return
		}
		if builders[name] == nil {
			builders[name] = termkit.NewKnowledgeBuilder(r.Kind, name)
		}
		builders[name].Add(r, m.Attrs())
	})
	var out []memory.KnowledgeItem
	for _, b := range builders {
		out = append(out, b.Item())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// checkList reads every page of q and compares their concatenation, and
// each page's size, with the reference.
func (w *kWorld) checkList(q memory.KnowledgeListQuery) {
	w.t.Helper()
	want := w.expectList(q)
	lim := q.Limit
	if lim == 0 {
		lim = memory.DefaultKnowledgePage
	}
	var got []memory.KnowledgeItem
	for pages := 0; ; pages++ {
		page, err := w.s.ListKnowledge(context.Background(), q)
		if err != nil {
			w.t.Fatalf("list %+v: %v", q, err)
		}
		if len(page.Items) > lim || (page.Next != "" && len(page.Items) != lim) || pages > len(want)+1 {
			w.t.Fatalf("list %+v: a page of %d items, next %q", q, len(page.Items), page.Next)
		}
		got = append(got, page.Items...)
		if page.Next == "" {
			break
		}
		q.Cursor = page.Next
	}
	if !(len(got) == 0 && len(want) == 0) && !reflect.DeepEqual(got, want) {
		w.t.Fatalf("list %s prefix %q limit %d filter %+v:\n got %+v\nwant %+v", q.Kind, q.Prefix, q.Limit, q.Filter, got, want)
	}
}

func (w *kWorld) expectVocabulary(org string) []string {
	seen := map[string]bool{}
	w.visible(memory.Filter{OrgID: org, IncludeArchived: true}, func(_ *memory.Memory, r memory.SemanticRef) {
		for _, t := range memory.DistinctTerms(r) {
			seen[t] = true
		}
	})
	out := []string{}
	for t := range seen {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

func (w *kWorld) vocabulary(org string, size int) []string {
	w.t.Helper()
	out := []string{}
	after := ""
	for {
		page, next, err := w.s.Vocabulary(context.Background(), org, after, size)
		if err != nil {
			w.t.Fatal(err)
		}
		if size > 0 && len(page) > size {
			w.t.Fatalf("a vocabulary page of %d terms, limit %d", len(page), size)
		}
		out = append(out, page...)
		if next == "" {
			return out
		}
		after = next
	}
}

func (w *kWorld) expectPending(org string, ids ...string) {
	w.t.Helper()
	var got []string
	after := ""
	for {
		p, err := w.s.PendingKnowledge(context.Background(), org, after, 2)
		if err != nil {
			w.t.Fatal(err)
		}
		if len(p) == 0 {
			break
		}
		for _, s := range p {
			if s.State != memory.KnowledgePending {
				w.t.Fatalf("pending lists %+v", s)
			}
			got = append(got, s.MemoryID)
		}
		after = p[len(p)-1].MemoryID
	}
	want := append([]string(nil), ids...)
	sort.Strings(want)
	if !reflect.DeepEqual(got, want) {
		w.t.Fatalf("pending: %v, want %v", got, want)
	}
}

// check compares everything the index answers for f with the model: the
// postings of every term the model knows (and of one it does not), prefix
// completions, properties, every list, the vocabulary and the statuses.
func (w *kWorld) check(org string, f memory.Filter) {
	w.t.Helper()
	voc := w.expectVocabulary(org)
	terms := append([]string{"no-such-term"}, voc...)
	for start := 0; start < len(terms); start += memory.MaxQueryTerms {
		w.checkLookup(memory.TermLookup{Filter: f, Terms: terms[start:min(len(terms), start+memory.MaxQueryTerms)]})
	}
	for _, p := range []string{"", "a", "b", "zo", "東", "new "} {
		w.checkTerms(f, p, memory.MaxTermPrefixResult)
	}
	for _, p := range w.properties(org) {
		w.checkProperty(memory.PropertyLookup{Filter: f, Name: p.Name, Value: p.Value})
	}
	for _, k := range memory.KnowledgeKinds {
		w.checkList(memory.KnowledgeListQuery{Filter: f, Kind: k, Limit: 4})
	}
	if got := w.vocabulary(org, 0); !reflect.DeepEqual(got, voc) {
		w.t.Fatalf("vocabulary of %s:\n got %q\nwant %q", org, got, voc)
	}
	var ids []string
	for id, m := range w.mems {
		if m.OrgID == org {
			ids = append(ids, id)
		}
	}
	st, err := w.s.KnowledgeStatus(context.Background(), org, ids)
	if err != nil {
		w.t.Fatal(err)
	}
	for _, id := range ids {
		if w.done[id] && (st[id].Refs != len(w.refs[id]) || st[id].Extractor != w.extractor[id]) {
			w.t.Fatalf("status of %s: %+v, want %d refs by %s", id, st[id], len(w.refs[id]), w.extractor[id])
		}
	}
}

// BenchKnowledge returns deterministic knowledge for the i-th memory of a
// benchmark corpus, over a vocabulary the size of a large org's: people
// from 400 first names and 8,000 surnames, 2,000 places, 3,000 two-word
// topics, 300 verbs, 40 types and 30 facets of 500 values, drawn with
// Zipf-like frequencies, about seven refs per memory.
func BenchKnowledge(i int) memory.Knowledge {
	r := rand.New(rand.NewPCG(uint64(i), 0x7e5))
	zipf := func(n int) int { // rank in [0, n), rank k with weight ~1/(k+1)
		return int(math.Exp(r.Float64()*math.Log(float64(n)+1))) - 1
	}
	person := func() string {
		return capital(benchWord(zipf(400), 2)) + " " + capital(benchWord(zipf(8000), 3))
	}
	place := capital(benchWord(zipf(2000)+400, 3)) + "ville"
	p1, p2 := person(), person()
	k := memory.Knowledge{
		Entities: []memory.Entity{
			{Name: p1, Types: []string{"person"}, Facets: []memory.Facet{{Name: benchWord(zipf(30), 2), Value: benchWord(zipf(500), 2)}}},
			{Name: p2, Types: []string{"person", benchWord(zipf(40), 2)}},
			{Name: place, Types: []string{"place"}},
		},
		Actions: []memory.Action{{Verbs: []string{benchWord(zipf(300)+100, 2) + "s"}, Subject: p1, Object: place}},
		Topics: []string{benchWord(zipf(3000), 3) + " " + benchWord(zipf(3000)+3000, 3),
			benchWord(zipf(3000), 3) + " " + benchWord(zipf(3000)+3000, 3)},
		Tags: []string{benchWord(zipf(200), 2)},
	}
	return k
}

var benchSyllables = strings.Fields("ka lo mi ra ten so vi do ne lu pa ri zo be ta go fe ha jo qu")

// benchWord spells n in syllables (at least min of them).
func benchWord(n, min int) string {
	var b strings.Builder
	for i := 0; i < min || n > 0; i++ {
		b.WriteString(benchSyllables[n%len(benchSyllables)])
		n /= len(benchSyllables)
	}
	return b.String()
}

func capital(w string) string { return strings.ToUpper(w[:1]) + w[1:] }

// termAttrs is m.Attrs() as a term index keeps them: without metadata.
func termAttrs(m *memory.Memory) memory.Attrs {
	a := m.Attrs()
	a.Meta = nil
	return a
}
