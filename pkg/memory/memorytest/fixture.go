// Package memorytest holds the contract suites that every Store and Index
// adapter must pass, and the fixtures they share. Adapter packages call
// StoreSuite and IndexSuite from their own tests against the real thing they
// adapt.
package memorytest

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Orgs and agents of the fixture.
const (
	OrgA   = "org-a"
	OrgB   = "org-b"
	AgentX = "agent-x"
	AgentY = "agent-y"
)

// Dimensions and Model describe the fixture's vectors.
const (
	Dimensions = 64
	Model      = "memorytest-fixed-64"
)

// Embed returns the fixed test vector of text: 64 dimensions at unit
// length, the same for the same text in every run. It is a shared direction
// plus one drawn from a generator seeded by the text's hash, so any two
// texts are alike by about one half (no fixture vector is opposite
// another) and a text is most alike to itself. It means nothing about the
// words: the suites test ranking by cosine, filters and isolation, not an
// embedder, and need none.
func Embed(text string) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	r := rand.New(rand.NewPCG(h.Sum64(), 0x6d656d6f))
	v := make([]float32, Dimensions)
	for i := range v {
		v[i] = float32(r.NormFloat64()) / 8 // |random part| ≈ 1
	}
	v[0]++ // the shared direction
	memory.Normalize(v)
	return v
}

// Base is the fixture's epoch.
var Base = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()

// New builds a valid memory for a store or index (id, hash, version and
// embedding set).
func New(org, agent string, typ memory.Type, text string, at int64) *memory.Memory {
	m := &memory.Memory{
		ID: memory.NewID(time.UnixMilli(at)), OrgID: org, AgentID: agent, Type: typ,
		Content: memory.Content{Text: text}, Importance: 0.5, Durability: memory.DurabilityStandard,
		Confidence: 1, CreatedAt: at, UpdatedAt: at, Version: 1,
	}
	if typ == memory.TypeFact {
		m.Kind = memory.KindPreference
	}
	m.ContentHash = memory.ContentHash(text)
	m.Embedding, m.EmbeddingModel = Embed(m.SearchText()), Model
	return m
}

var (
	rooms    = []string{"room-1", "room-2", ""}
	entities = []string{"alice", "bob", "carol"}
	sessions = []string{"s1", "s2"}
	types    = []memory.Type{memory.TypeMessage, memory.TypeFact, memory.TypeFragment, memory.TypeCustom}
	agents   = []string{"", AgentX, AgentY}
	topics   = []string{"hiking in the mountains", "baking sourdough bread", "learning the violin",
		"planning a trip to Japan", "training for a marathon", "painting with watercolors"}
)

// Corpus returns n varied memories of org, deterministic in n: every
// combination of agent, type, room, entity and session occurs, one in seven
// is archived, one in five is durability core, and every text contains the
// word "memo" so a keyword search for it selects them all.
func Corpus(org string, n int) []*memory.Memory {
	out := make([]*memory.Memory, n)
	for i := range out {
		text := fmt.Sprintf("memo %d about %s, note %d", i, topics[i%len(topics)], i*7919%1000)
		m := New(org, agents[i%3], types[i%4], text, Base+int64(i)*60_000)
		m.RoomID, m.EntityID, m.SessionID = rooms[i%3], entities[(i/3)%3], sessions[(i/2)%2]
		if m.Type == memory.TypeFragment {
			m.DocumentID = fmt.Sprintf("doc-%d", i%2)
			p := i
			m.Position = &p
		}
		m.Archived = i%7 == 6
		// Metadata of every filterable shape: a string, a number, an
		// array (any element matches), a boolean, and an object (never).
		m.Metadata = []byte(fmt.Sprintf(`{"project":"p%d","priority":%d,"tags":["t%d","all"],"done":%v,"nested":{"project":"p0"}}`,
			i%3, i%4, i%2, i%5 == 0))
		if i%5 == 0 {
			m.Durability = memory.DurabilityCore
		}
		out[i] = m
	}
	return out
}

// Filters is a table of filters over Corpus(OrgA, ...) that exercises every
// field, alone and combined. OrgID is set by the caller.
func Filters() []struct {
	Name string
	F    memory.Filter
} {
	t0 := Base + 10*60_000
	return []struct {
		Name string
		F    memory.Filter
	}{
		{"all", memory.Filter{}},
		{"archived too", memory.Filter{IncludeArchived: true}},
		{"viewer x", memory.Filter{Viewer: AgentX}},
		{"agent y", memory.Filter{AgentID: AgentY}},
		{"org scope", memory.Filter{AgentID: memory.OrgScope}},
		{"viewer x org scope", memory.Filter{Viewer: AgentX, AgentID: memory.OrgScope}},
		{"type", memory.Filter{Types: []memory.Type{memory.TypeMessage}}},
		{"types", memory.Filter{Types: []memory.Type{memory.TypeFact, memory.TypeFragment}}},
		{"kind", memory.Filter{Kinds: []memory.Kind{memory.KindPreference}}},
		{"durability", memory.Filter{Durability: memory.DurabilityCore}},
		{"room", memory.Filter{RoomID: "room-1"}},
		{"entity", memory.Filter{EntityID: "bob"}},
		{"session", memory.Filter{SessionID: "s2"}},
		{"document", memory.Filter{DocumentID: "doc-1"}},
		{"start", memory.Filter{Start: t0}},
		{"end", memory.Filter{End: t0}},
		{"range", memory.Filter{Start: t0, End: t0 + 20*60_000}},
		{"combined", memory.Filter{Viewer: AgentY, Types: []memory.Type{memory.TypeMessage, memory.TypeCustom},
			RoomID: "room-2", Start: Base, End: Base + 40*60_000}},
		{"entity session archived", memory.Filter{EntityID: "alice", SessionID: "s1", IncludeArchived: true}},
		{"nothing", memory.Filter{RoomID: "no-such-room"}},
		{"metadata equal", memory.Filter{Metadata: memory.MetadataFilter{"project": {"p1"}}}},
		{"metadata in", memory.Filter{Metadata: memory.MetadataFilter{"project": {"p0", "p2"}}}},
		{"metadata number", memory.Filter{Metadata: memory.MetadataFilter{"priority": {"3"}}}},
		{"metadata array and boolean", memory.Filter{Metadata: memory.MetadataFilter{"tags": {"t1"}, "done": {"true"}}}},
		{"metadata with room and viewer", memory.Filter{Viewer: AgentX, RoomID: "room-1",
			Metadata: memory.MetadataFilter{"project": {"p2", "p1"}, "tags": {"all"}}}},
		{"metadata no value matches", memory.Filter{Metadata: memory.MetadataFilter{"project": {"p9"}}}},
		{"metadata inside an object is not filterable", memory.Filter{Metadata: memory.MetadataFilter{"nested": {"p0"}}}},
	}
}

// Expect returns the ids of ms that f selects, by the reference semantics.
func Expect(ms []*memory.Memory, f memory.Filter) map[string]bool {
	out := map[string]bool{}
	for _, m := range ms {
		if f.Match(m.Attrs()) {
			out[m.ID] = true
		}
	}
	return out
}
