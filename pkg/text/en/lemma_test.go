package en_test

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/text/en"
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
		if got := en.Lemma(in); got != want {
			t.Errorf("en.Lemma(%q) = %q, want %q", in, got, want)
		}
		if got := en.Lemma(en.Lemma(in)); got != en.Lemma(in) {
			t.Errorf("Lemma is not idempotent on %q: %q then %q", in, en.Lemma(in), got)
		}
	}
}
