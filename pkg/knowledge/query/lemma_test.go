package query

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
)

func TestLemma(t *testing.T) {
	tests := map[string]string{
		"moved": "move", "move": "move", "moves": "move", "moving": "move", "went": "go", "gone": "go", "goes": "go",
		"tried": "try", "tries": "try", "trying": "try", "studied": "study", "stopped": "stop", "planning": "plan",
		"travelled": "travel", "traveled": "travel", "called": "call", "passed": "pass", "danced": "dance",
		"baked": "bake", "hiking": "hike", "making": "make", "sharing": "share", "cooked": "cook", "visited": "visit",
		"opened": "open", "joined": "join", "painting": "paint", "climbing": "climb", "swimming": "swim",
		"running": "run", "bought": "buy", "read": "read", "ate": "eat", "was": "be", "has": "have", "did": "do",
		"watches": "watch", "agreed": "agree", "need": "need", "needed": "need", "feed": "feed", "bring": "bring",
		"sing": "sing", "used": "use", "lay": "lay", "born": "born", "picked up": "pick up", "started": "start",
		"adopted": "adopt", "played": "play", "lying": "lie", "loved": "love", "argued": "argue",
		"retired": "retire", "skied": "ski", "celebrated": "celebrate", "graduated": "graduate", "decided": "decide",
		"described": "describe", "included": "include", "computing": "compute", "promoted": "promote",
		"combined": "combine", "prepared": "prepare", "measured": "measure", "proposed": "propose",
		"purchased": "purchase", "released": "release", "struggled": "struggle", "settled": "settle",
		"charged": "charge", "changed": "change", "judged": "judge", "nursed": "nurse", "collapsed": "collapse",
		"discussed": "discuss", "installed": "install", "recalled": "recall", "controlled": "control",
		"cancelled": "cancel", "repeated": "repeat", "treated": "treat", "invited": "invite", "completed": "complete",
		"explored": "explore", "created": "create", "welcomed": "welcome", "focused": "focus", "refused": "refuse",
		"belonged": "belong", "appeared": "appear", "visiting": "visit", "edited": "edit", "happened": "happen",
		"listened": "listen", "volunteered": "volunteer", "organized": "organize", "joked": "joke", "hoped": "hope",
		"hopped": "hop", "worked": "work", "fixed": "fix", "snowed": "snow", "kissed": "kiss", "greeted": "greet",
	}
	for in, want := range tests {
		if got := Lemma(in); got != want {
			t.Errorf("Lemma(%q) = %q, want %q", in, got, want)
		}
		if got := Lemma(Lemma(in)); got != Lemma(in) {
			t.Errorf("Lemma is not idempotent on %q: %q then %q", in, Lemma(in), got)
		}
	}
}

// TestLemmaAgreesWithOfflineExtractor checks that the lemmas of query
// verbs are the ones the offline extractor indexes, on simple sentences.
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
		if Lemma(form) != got {
			t.Errorf("%q: Lemma gives %q, the offline extractor indexes %q", form, Lemma(form), got)
		}
	}
	if compared < 30 {
		t.Fatalf("only %d verbs were compared: the sentences no longer give actions", compared)
	}
}
