package termkit

import (
	"sort"

	"github.com/agentmem/agentmem/pkg/memory"
)

// KnowledgeBuilder folds the visible refs of one memory.TermIndex.ListKnowledge
// name into its memory.KnowledgeItem; every adapter builds items with it so
// that they agree. Refs and memories are counted over every visible ref; types
// and facets are merged from the newest memory.MaxListMerge of them, so that a
// name mentioned thousands of times costs a bounded merge.
type KnowledgeBuilder struct {
	item     memory.KnowledgeItem
	memories map[string]bool
	merge    []mergeRef
}

type mergeRef struct {
	at  int64
	ref memory.SemanticRef
}

// NewKnowledgeBuilder starts the item of name of kind.
func NewKnowledgeBuilder(kind memory.KnowledgeKind, name string) *KnowledgeBuilder {
	return &KnowledgeBuilder{item: memory.KnowledgeItem{Kind: kind, Name: name}, memories: map[string]bool{}}
}

// Name returns the name the item is built for.
func (b *KnowledgeBuilder) Name() string { return b.item.Name }

// Add counts one ref, of a memory with attrs, and merges it.
func (b *KnowledgeBuilder) Add(r memory.SemanticRef, attrs memory.Attrs) {
	b.Count(r.MemoryID, attrs.CreatedAt)
	b.Merge(r, attrs.CreatedAt)
}

// Count counts one ref of a memory created at createdAt.
func (b *KnowledgeBuilder) Count(memoryID string, createdAt int64) {
	it := &b.item
	if it.Refs == 0 || createdAt < it.FirstAt {
		it.FirstAt = createdAt
	}
	if it.Refs == 0 || createdAt > it.LastAt {
		it.LastAt = createdAt
	}
	it.Refs++
	if !b.memories[memoryID] {
		b.memories[memoryID] = true
		it.Memories++
	}
}

// Merge offers one ref, of a memory created at createdAt, for the merge of
// types and facets; the newest memory.MaxListMerge offered are merged.
func (b *KnowledgeBuilder) Merge(r memory.SemanticRef, createdAt int64) {
	if r.Kind != memory.KnowledgeEntity || r.Entity == nil {
		return
	}
	b.merge = append(b.merge, mergeRef{at: createdAt, ref: r})
	if len(b.merge) >= 4*memory.MaxListMerge {
		b.trim()
	}
}

// trim keeps the newest memory.MaxListMerge refs offered, newest first
// (CreatedAt, MemoryID, Ordinal descending).
func (b *KnowledgeBuilder) trim() {
	sort.Slice(b.merge, func(i, j int) bool {
		x, y := b.merge[i], b.merge[j]
		switch {
		case x.at != y.at:
			return x.at > y.at
		case x.ref.MemoryID != y.ref.MemoryID:
			return x.ref.MemoryID > y.ref.MemoryID
		}
		return x.ref.Ordinal > y.ref.Ordinal
	})
	if len(b.merge) > memory.MaxListMerge {
		b.merge = b.merge[:memory.MaxListMerge]
	}
}

// Item returns the item, its types and facets sorted and cut to
// memory.MaxListFacets.
func (b *KnowledgeBuilder) Item() memory.KnowledgeItem {
	b.trim()
	it := b.item
	it.Types, it.Facets = nil, nil
	types, facets := map[string]bool{}, map[memory.Property]bool{}
	for _, m := range b.merge {
		for _, t := range m.ref.Entity.Types {
			if t = memory.NormalizeTerm(t); t != "" && !types[t] {
				types[t] = true
				it.Types = append(it.Types, t)
			}
		}
		for _, p := range memory.IndexedProperties(m.ref) {
			if !facets[p] {
				facets[p] = true
				it.Facets = append(it.Facets, p)
			}
		}
	}
	sort.Strings(it.Types)
	if len(it.Types) > memory.MaxListFacets {
		it.Types = it.Types[:memory.MaxListFacets]
	}
	sort.Slice(it.Facets, func(i, j int) bool {
		if it.Facets[i].Name != it.Facets[j].Name {
			return it.Facets[i].Name < it.Facets[j].Name
		}
		return it.Facets[i].Value < it.Facets[j].Value
	})
	if len(it.Facets) > memory.MaxListFacets {
		it.Facets = it.Facets[:memory.MaxListFacets]
	}
	return it
}
