package termkit

import (
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ValidRefs checks the refs of one memory for memory.TermIndex.PutKnowledge and
// returns them with MemoryID set, cut to memory.MaxRefsPerMemory.
func ValidRefs(memoryID string, refs []memory.SemanticRef) ([]memory.SemanticRef, error) {
	if len(refs) > memory.MaxRefsPerMemory {
		refs = refs[:memory.MaxRefsPerMemory]
	}
	out := make([]memory.SemanticRef, len(refs))
	for i, r := range refs {
		if r.MemoryID != "" && r.MemoryID != memoryID {
			return nil, memory.Errorf(memory.EINVALID, "refs[%d].memoryId: %q is not the memory %q", i, r.MemoryID, memoryID)
		}
		if r.Ordinal != i {
			return nil, memory.Errorf(memory.EINVALID, "refs[%d].ordinal: %d, want %d (refs are numbered in order)", i, r.Ordinal, i)
		}
		if err := memory.ValidKnowledgeKind(r.Kind); err != nil {
			return nil, memory.Errorf(memory.EINVALID, "refs[%d].%s", i, memory.ErrorMessage(err))
		}
		ok := false
		switch r.Kind {
		case memory.KnowledgeEntity:
			ok = r.Entity != nil && r.Action == nil && r.Topic == ""
		case memory.KnowledgeAction:
			ok = r.Action != nil && r.Entity == nil && r.Topic == ""
		default:
			ok = r.Topic != "" && r.Entity == nil && r.Action == nil
		}
		if !ok {
			return nil, memory.Errorf(memory.EINVALID, "refs[%d]: a %s ref must hold exactly its %s", i, r.Kind, r.Kind)
		}
		if r.Range.Start < 0 || r.Range.End < r.Range.Start {
			return nil, memory.Errorf(memory.EINVALID, "refs[%d].range: [%d, %d) is not a range", i, r.Range.Start, r.Range.End)
		}
		r.MemoryID = memoryID
		out[i] = r
	}
	return out, nil
}

// ValidPut checks the arguments of memory.TermIndex.PutKnowledge and returns
// the attrs with OrgID set and the refs as ValidRefs returns them.
func ValidPut(orgID, memoryID string, attrs memory.Attrs, extractor string, refs []memory.SemanticRef) (memory.Attrs, []memory.SemanticRef, error) {
	if orgID == "" {
		return attrs, nil, memory.Errorf(memory.EINTERNAL, "term index: put without org")
	}
	if memoryID == "" {
		return attrs, nil, memory.Errorf(memory.EINVALID, "memoryId: required")
	}
	if err := memory.ValidID("memoryId", memoryID); err != nil {
		return attrs, nil, err
	}
	if attrs.OrgID == "" {
		attrs.OrgID = orgID
	} else if attrs.OrgID != orgID {
		return attrs, nil, memory.Errorf(memory.EINVALID, "attrs.orgId: %q is not the org %q", attrs.OrgID, orgID)
	}
	if len(extractor) > memory.MaxExtractorBytes || !utf8.ValidString(extractor) {
		return attrs, nil, memory.Errorf(memory.EINVALID, "extractor: must be valid UTF-8 of at most %d bytes", memory.MaxExtractorBytes)
	}
	attrs.Meta = nil // term indexes keep no metadata (see TermIndex)
	refs, err := ValidRefs(memoryID, refs)
	return attrs, refs, err
}

// ValidMemoryIDs checks the ids of a memory.TermIndex call.
func ValidMemoryIDs(orgID string, ids []string) error {
	if orgID == "" {
		return memory.Errorf(memory.EINTERNAL, "term index: call without org")
	}
	for _, id := range ids {
		if id == "" {
			return memory.Errorf(memory.EINVALID, "memoryIds: an id is empty")
		}
		if err := memory.ValidID("memoryIds", id); err != nil {
			return err
		}
	}
	return nil
}
