package mcp

import "testing"

func TestModelText(t *testing.T) {
	day := int64(1764288000000) // 2025-11-28 UTC
	ana := Memory{ID: "m1", Type: "fact", Kind: "preference", Text: "Ana likes\n  green tea", CreatedAt: day}
	bo := Memory{ID: "m2", Type: "message", Text: "Bo: see you in Lisbon", CreatedAt: day}
	for _, tc := range []struct {
		name string
		out  modelText
		want string
	}{
		{"recall", RecallOutput{Results: []RecallResult{{Memory: ana, Score: 0.9}, {Memory: bo}}},
			"1. m1 [fact/preference, 2025-11-28] Ana likes green tea\n2. m2 [message, 2025-11-28] Bo: see you in Lisbon"},
		{"recall, nothing", RecallOutput{}, "No memories found."},
		{"list with a next page", ListOutput{Memories: []Memory{bo}, NextCursor: "c2"},
			"1. m2 [message, 2025-11-28] Bo: see you in Lisbon\nMore: call list again with cursor c2"},
		{"context", ContextOutput{Context: "## Facts\n- Ana likes green tea"}, "## Facts\n- Ana likes green tea"},
		{"context, empty", ContextOutput{}, "No relevant memories."},
		{"remember", RememberOutput{ID: "m1"}, "Remembered as m1."},
		{"remember, duplicate", RememberOutput{ID: "m1", Duplicate: true}, "Already stored as m1."},
		{"forget one", ForgetOutput{Deleted: 1}, "Deleted 1 memory."},
		{"erasure", ForgetOutput{Deleted: 3, Matched: 2, Facts: 1, AuditID: "a1"},
			"Deleted 3 memories. Matched 2; 1 dependent facts and 0 relations removed; audit entry a1."},
		{"knowledge", KnowledgeOutput{Entities: []KnowledgeItem{{Name: "Ana", Types: []string{"person"}}}, Actions: []KnowledgeItem{{Name: "Ana move Lisbon"}},
			Memories: []KnowledgeMemory{{Memory: ana}}},
			"Entities: Ana (person)\nActions: Ana move Lisbon\nMemories:\n1. m1 [fact/preference, 2025-11-28] Ana likes green tea"},
		{"knowledge, nothing", KnowledgeOutput{}, "Nothing found."},
	} {
		if got := tc.out.modelText(); got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
