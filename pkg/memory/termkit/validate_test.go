package termkit

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func TestValidRefs(t *testing.T) {
	good := memory.Knowledge{Entities: []memory.Entity{{Name: "Ana"}}, Topics: []string{"x"}}.Refs("m")
	if refs, err := ValidRefs("m", good); err != nil || len(refs) != 2 {
		t.Fatalf("good refs: %v %v", refs, err)
	}
	many := make([]memory.SemanticRef, memory.MaxRefsPerMemory+5)
	for i := range many {
		many[i] = memory.SemanticRef{Ordinal: i, Kind: memory.KnowledgeTag, Topic: "t"}
	}
	if refs, err := ValidRefs("m", many); err != nil || len(refs) != memory.MaxRefsPerMemory || refs[0].MemoryID != "m" {
		t.Fatalf("too many refs are cut: %d %v", len(refs), err)
	}
	for name, bad := range map[string][]memory.SemanticRef{
		"ordinal":      {{Ordinal: 1, Kind: memory.KnowledgeTag, Topic: "t"}},
		"memory":       {{MemoryID: "n", Kind: memory.KnowledgeTag, Topic: "t"}},
		"kind":         {{Kind: "opinion", Topic: "t"}},
		"two payloads": {{Kind: memory.KnowledgeTopic, Topic: "t", Entity: &memory.Entity{Name: "x"}}},
		"no payload":   {{Kind: memory.KnowledgeAction}},
		"range":        {{Kind: memory.KnowledgeTag, Topic: "t", Range: memory.TextRange{Start: -1}}},
	} {
		if _, err := ValidRefs("m", bad); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}
