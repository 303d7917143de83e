package offline

import (
	"context"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Options tunes the extractor. The zero value is the default.
type Options struct {
	// MaxTopics per memory (default 8).
	MaxTopics int
	// MaxEntities per memory, metadata entities included (default 48).
	MaxEntities int
	// MaxActions per memory, metadata actions included (default 32).
	MaxActions int
	// OmitSayActions leaves out the metadata action "speaker say listener"
	// that KnowPro adds for every listener.
	OmitSayActions bool
	// MaxTextBytes of a memory's text that are read (default 64 KiB); the
	// rest is ignored.
	MaxTextBytes int
}

func (o Options) withDefaults() Options {
	if o.MaxTopics <= 0 {
		o.MaxTopics = 8
	}
	if o.MaxEntities <= 0 {
		o.MaxEntities = 48
	}
	if o.MaxActions <= 0 {
		o.MaxActions = 32
	}
	if o.MaxTextBytes <= 0 {
		o.MaxTextBytes = 64 << 10
	}
	return o
}

// Extractor is the offline knowledge extractor. The zero value is ready to
// use with default options; it is safe for concurrent use.
type Extractor struct {
	Options Options
}

// New returns an Extractor with options o.
func New(o Options) *Extractor { return &Extractor{Options: o} }

// Name implements memory.KnowledgeExtractor.
func (e *Extractor) Name() string { return "offline-v1" }

// Extract implements memory.KnowledgeExtractor: one Knowledge per source, in
// order. It fails only when ctx is done.
func (e *Extractor) Extract(ctx context.Context, sources []memory.KnowledgeSource) ([]memory.Knowledge, error) {
	out := make([]memory.Knowledge, len(sources))
	for i, src := range sources {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = e.ExtractOne(src)
	}
	return out, nil
}

// ExtractOne returns the knowledge of one source: its metadata knowledge
// (speaker and listeners) and what the text says.
func (e *Extractor) ExtractOne(src memory.KnowledgeSource) memory.Knowledge {
	o := e.Options.withDefaults()
	a := newAnalysis(src, o)
	a.run()
	return a.knowledge()
}

// Metadata returns the knowledge a source's metadata gives, whatever its
// text says: the speaker and each listener as a person, and unless
// omitSay, an action "speaker say listener" per listener, as KnowPro does.
func Metadata(src memory.KnowledgeSource, omitSay bool) memory.Knowledge {
	var set entitySet
	var k memory.Knowledge
	speaker := cleanName(src.Speaker)
	if speaker != "" {
		set.add(speaker, []string{"person"}, memory.TextRange{})
	}
	for _, l := range src.Listeners {
		l = cleanName(l)
		if l == "" || strings.EqualFold(l, speaker) {
			continue
		}
		if _, dup := set.idx[memory.NormalizeTerm(l)]; dup {
			continue
		}
		set.add(l, []string{"person"}, memory.TextRange{})
		if speaker != "" && !omitSay {
			k.Actions = append(k.Actions, memory.Action{Verbs: []string{"say"}, Tense: memory.TensePast, Subject: speaker, Object: l})
			k.ActionRanges = append(k.ActionRanges, memory.TextRange{})
		}
	}
	k.Entities, k.EntityRanges = set.list, set.ranges
	return k
}

// cleanName trims a metadata name and rejects invalid ones.
func cleanName(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if memory.NormalizeTerm(s) == "" || len(s) > 200 {
		return ""
	}
	return s
}

// entitySet collects entities by normalized name, merging types and facets.
type entitySet struct {
	idx    map[string]int
	list   []memory.Entity
	ranges []memory.TextRange
}

// add adds or merges an entity and returns its index, or -1 when the name
// is empty.
func (s *entitySet) add(name string, types []string, r memory.TextRange) int {
	key := memory.NormalizeTerm(name)
	if key == "" {
		return -1
	}
	if s.idx == nil {
		s.idx = map[string]int{}
	}
	i, ok := s.idx[key]
	if !ok {
		i = len(s.list)
		s.idx[key] = i
		s.list = append(s.list, memory.Entity{Name: name, Types: []string{}})
		s.ranges = append(s.ranges, r) // the first mention; metadata's covers the whole memory
	}
	for _, t := range types {
		s.addType(i, t)
	}
	return i
}

func (s *entitySet) addType(i int, t string) {
	if i < 0 || t == "" {
		return
	}
	for _, x := range s.list[i].Types {
		if x == t {
			return
		}
	}
	s.list[i].Types = append(s.list[i].Types, t)
}

func (s *entitySet) hasType(i int, t string) bool {
	if i < 0 {
		return false
	}
	for _, x := range s.list[i].Types {
		if x == t {
			return true
		}
	}
	return false
}

func (s *entitySet) addFacet(i int, f memory.Facet) {
	if i < 0 || memory.NormalizeTerm(f.Name) == "" || memory.NormalizeTerm(f.String()) == "" {
		return
	}
	for _, x := range s.list[i].Facets {
		if strings.EqualFold(x.Name, f.Name) && strings.EqualFold(x.String(), f.String()) {
			return
		}
	}
	if len(s.list[i].Facets) < 16 {
		s.list[i].Facets = append(s.list[i].Facets, f)
	}
}

func (s *entitySet) find(name string) int {
	if i, ok := s.idx[memory.NormalizeTerm(name)]; ok {
		return i
	}
	return -1
}
