// Package synth generates the synthetic corpus of the latency and peer
// benchmarks: memories whose words are drawn from a Zipf distribution
// (s = 1.1) over a vocabulary of real English words and generated names,
// one short sentence to a paragraph long, spread over rooms, speakers and
// types, and short queries drawn from the same distribution.
//
// The generator is deterministic in its seed and in the order of its calls:
// cmd/bench-latency and cmd/bench-peers both use it, so for a seed and a
// size they build the same memories, and, when the queries are drawn after
// the memories, the same queries.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// VocabularySize is the number of distinct words the texts draw from.
const VocabularySize = 20000

// Generator makes synthetic memories and queries. It is not safe for
// concurrent use.
type Generator struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

// New returns the generator of seed.
func New(seed uint64) *Generator {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	base := strings.Fields(`time person year way day thing man world life hand part child eye woman place work week
		case point government company number group problem fact meeting project budget travel flight hotel dinner
		coffee tea pizza book movie music concert guitar piano painting garden dog cat family friend school doctor
		hospital birthday wedding holiday summer winter spring autumn beach mountain hike run marathon gym yoga
		recipe kitchen bread cake wine beer restaurant office manager team client contract invoice payment bank
		house apartment rent car bike train bus airport visa passport ticket museum city country language course
		exam degree job interview salary promotion deadline launch release bug feature design review sprint plan
		allergy medicine appointment dentist sister brother mother father son daughter partner neighbour camping
		photo camera phone laptop email message call video game football tennis swimming chess podcast novel`)
	vocab := append([]string(nil), base...)
	syll := []string{"ka", "lo", "mi", "ra", "ten", "vos", "ne", "da", "sul", "pri", "an", "tor", "el", "zu"}
	for len(vocab) < VocabularySize {
		w := syll[rng.IntN(len(syll))] + syll[rng.IntN(len(syll))] + syll[rng.IntN(len(syll))]
		vocab = append(vocab, w)
	}
	return &Generator{rng: rng, zipf: rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1)), vocab: vocab}
}

// Word returns one word drawn from the Zipf distribution.
func (g *Generator) Word() string { return g.vocab[g.zipf.Uint64()] }

// Words returns n words drawn from the Zipf distribution, joined by spaces.
func (g *Generator) Words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.Word()
	}
	return strings.Join(w, " ")
}

// Memory is one synthetic memory: its text and the attributes the latency
// benchmark stores with it.
type Memory struct {
	Type       memory.Type
	Text       string // the words, then " (i)"
	RoomID     string
	EntityID   string
	DocumentID string // fragments only
	CreatedAt  int64  // ms: one minute after the memory before
}

var types = []memory.Type{memory.TypeMessage, memory.TypeMessage, memory.TypeMessage, memory.TypeFact, memory.TypeFragment, memory.TypeCustom}

// Memory returns the i-th memory. Call it for i = 0, 1, 2... in order: each
// call advances the generator.
func (g *Generator) Memory(i int) Memory {
	n := 5 + g.rng.IntN(20)
	if g.rng.IntN(5) == 0 {
		n = 40 + g.rng.IntN(120) // a paragraph
	}
	m := Memory{Type: types[g.rng.IntN(len(types))]}
	m.Text = fmt.Sprintf("%s (%d)", g.Words(n), i)
	m.RoomID = fmt.Sprintf("room-%d", g.rng.IntN(200))
	m.EntityID = fmt.Sprintf("user-%d", g.rng.IntN(50))
	m.CreatedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() + int64(i)*60_000
	if m.Type == memory.TypeFragment {
		m.DocumentID = fmt.Sprintf("doc-%d", i/20)
	}
	return m
}

// Query returns a query of three to eight words.
func (g *Generator) Query() string { return g.Words(3 + g.rng.IntN(6)) }
