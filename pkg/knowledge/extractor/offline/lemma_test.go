package offline_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// TestLemmaAgreesWithOfflineExtractor checks that the lemmas of query
// verbs (en.Lemma, which the query translators use) are the ones the
// offline extractor indexes, on simple sentences.
func TestLemmaAgreesWithOfflineExtractor(t *testing.T) {
	x := offline.New(offline.Options{OmitSayActions: true})
	compared := 0
	for _, form := range []string{"moved", "adopted", "tried", "studied", "stopped", "travelled", "baked", "hiked",
		"danced", "visited", "joined", "painted", "climbed", "bought", "went", "ate", "read", "shared", "cooked",
		"planned", "played", "started", "loved", "wrote", "won", "lost", "met", "sold", "built", "taught", "finished",
		"opened", "watched", "used", "married", "retired", "skied", "quit", "ran", "swam", "drove", "caught",
		"celebrated", "graduated", "decided", "described", "included", "prepared", "changed", "struggled", "invited",
		"completed", "explored", "welcomed", "organized", "volunteered", "discussed", "recommended", "practiced",
		"competed", "donated", "raised", "rescued", "fostered", "interviewed", "auditioned", "renovated", "registered"} {
		k := x.ExtractOne(memory.KnowledgeSource{MemoryID: "m", Speaker: "Sam", Text: "Yesterday I " + form + " it."})
		var got string
		for _, a := range k.Actions {
			if a.Subject == "Sam" && len(a.Verbs) > 0 {
				got = a.Verbs[0]
			}
		}
		if got == "" {
			continue // the extractor found no action here: nothing to compare
		}
		compared++
		if en.Lemma(form) != got {
			t.Errorf("%q: Lemma gives %q, the offline extractor indexes %q", form, en.Lemma(form), got)
		}
	}
	if compared < 30 {
		t.Fatalf("only %d verbs were compared: the sentences no longer give actions", compared)
	}
}
