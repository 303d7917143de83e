package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/internal/locomo"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// TestScore: an observation counts as recalled only by a fact that cites
// one of its turns and is close enough; a fact counts as correct only
// when it matches an observation the same way.
func TestScore(t *testing.T) {
	doc := `{"speaker_a":"Ana","speaker_b":"Bo",
	"session_1_date_time":"1:56 pm on 8 May, 2023",
	"session_1":[{"speaker":"Ana","dia_id":"D1:1","text":"I'm allergic to penicillin."},
	             {"speaker":"Bo","dia_id":"D1:2","text":"My sister lives in Porto."},
	             {"speaker":"Ana","dia_id":"D1:3","text":"I love hiking in the Alps."}],
	"session_1_observation":{"Ana":[["Ana is allergic to penicillin.","D1:1"],["Ana is allergic to penicillin.","D1:3"],["Ana has a cat.","D1:1"]],
	                         "Bo":[["Bo's sister lives in Porto.",["D1:2"]]]}}`
	path := filepath.Join(t.TempDir(), "conv-x.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	conv, err := locomo.Load(path)
	if err != nil || len(conv.Sessions) != 1 || len(conv.Sessions[0].Observations) != 4 {
		t.Fatalf("load: %+v %v", conv, err)
	}
	thresholds := []float64{0.9}
	c, err := score(context.Background(), extract.Local{}, hashing.New(256), conv, thresholds, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Recalled: penicillin on D1:1 and Porto on D1:2; not penicillin on
	// D1:3 (the hiking fact is far from it), not the cat (no such fact).
	// Correct: the penicillin and Porto facts; not the hiking one. Every
	// observation cites a turn with a fact (coverage 4).
	if c.Observations != 4 || c.Matched[0] != 2 || c.Facts != 3 || c.Correct[0] != 2 || c.Turns != 3 || c.Covered != 4 {
		t.Fatalf("counts %+v", c)
	}
}
