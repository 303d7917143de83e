package service

import (
	"testing"

	"github.com/agentmem/agentmem/memory"
)

func TestThresholds(t *testing.T) {
	kw := []memory.Hit{{ID: "a", Score: 10}, {ID: "b", Score: 6}, {ID: "c", Score: 4}}
	if got := thresholdKeyword(kw, 0.5); len(got) != 2 {
		t.Fatalf("keyword threshold 0.5 kept %v", got)
	}
	sem := []memory.Hit{{ID: "a", Score: 0.9}, {ID: "b", Score: 0.5}, {ID: "c", Score: 0.2}}
	if got := thresholdSemantic(sem, 0.3); len(got) != 2 {
		t.Fatalf("semantic threshold 0.3 kept %v", got)
	}
	if got := thresholdSemantic(sem, 0); len(got) != 3 {
		t.Fatalf("threshold 0 kept %v", got)
	}
}
