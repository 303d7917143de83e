package extract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// want is one fact the offline extractor must find in a turn of Ana's.
type want struct {
	text, subject, slot, value string
	neg, chg                   bool
	kind                       memory.Kind
	importance                 float64
	durability                 memory.Durability
}

func TestLocalExtractor(t *testing.T) {
	const core, std, eph = memory.DurabilityCore, memory.DurabilityStandard, memory.DurabilityEphemeral
	tests := []struct {
		said string
		want []want
	}{
		// Preferences, identity and plans (the first version's cases).
		{"I love hiking in the Alps.", []want{{"Ana loves hiking in the Alps", "Ana", "preference:hiking", "hiking", false, false, memory.KindPreference, 0.65, std}}},
		{"Honestly my favourite food is ramen.", []want{{"Ana's favourite food is ramen", "Ana", "favorite:food", "ramen", false, false, memory.KindPreference, 0.7, std}}},
		{"I work as a nurse at the city hospital.", []want{{"Ana works as a nurse at the city hospital", "Ana", "occupation", "nurse", false, false, memory.KindEntity, 0.8, std}}},
		{"We decided to move the launch to June.", []want{{"Ana and others decided to move the launch to June", "Ana", "", "", false, false, memory.KindFact, 0.7, std}}},
		{"I'm planning to visit Kyoto in spring.", []want{{"Ana is planning to visit Kyoto in spring", "Ana", "plan:visit kyoto", "visit Kyoto", false, false, memory.KindFact, 0.6, std}}},
		{"I don't drink coffee anymore.", []want{{"Ana does not drink coffee anymore", "Ana", "diet:coffee", "coffee", true, true, memory.KindPreference, 0.8, std}}},
		{"Actually I prefer tea now.", []want{{"Ana prefers tea now", "Ana", "preference:tea", "tea", false, true, memory.KindPreference, 0.65, std}}},
		// Several facts in one sentence.
		{"My name is Ana Souza and I live in Lisbon.", []want{
			{"Ana's name is Ana Souza", "Ana", "name", "Ana Souza", false, false, memory.KindEntity, 0.9, core},
			{"Ana lives in Lisbon", "Ana", "home", "Lisbon", false, false, memory.KindFact, 0.8, std}}},
		{"I'm allergic to penicillin; I have asthma.", []want{
			{"Ana is allergic to penicillin", "Ana", "allergy:penicillin", "penicillin", false, false, memory.KindFact, 0.9, core},
			{"Ana has asthma", "Ana", "health:asthma", "asthma", false, false, memory.KindFact, 0.9, core}}},
		{"I used to hate running, but my brother got me into it.", []want{
			{"Ana used to hate running", "Ana", "", "", false, true, memory.KindFact, 0.5, std}}},
		// Third person.
		{"Maya's sister lives in Porto.", []want{{"Maya's sister lives in Porto", "Maya's sister", "home", "Porto", false, false, memory.KindFact, 0.8, std}}},
		{"Li works at Acme.", []want{{"Li works at Acme", "Li", "employer", "Acme", false, false, memory.KindFact, 0.8, std}}},
		{"Maya doesn't eat gluten, and she never drinks milk.", []want{
			{"Maya doesn't eat gluten", "Maya", "diet:gluten", "gluten", true, false, memory.KindPreference, 0.8, std},
			{"Maya never drinks milk", "Maya", "diet:milk", "milk", true, false, memory.KindPreference, 0.8, std}}},
		// Dates and plans.
		{"I'm moving to Berlin in March.", []want{{"Ana is moving to Berlin in March", "Ana", "plan:move", "Berlin", false, false, memory.KindFact, 0.6, std}}},
		{"My birthday is 14 July.", []want{{"Ana's birthday is 14 July", "Ana", "birthday", "14 July", false, false, memory.KindFact, 0.9, core}}},
		{"Next week I start at Google.", []want{{"Ana starts at Google next week", "Ana", "employer", "Google", false, true, memory.KindFact, 0.8, std}}},
		{"I might try surfing someday.", nil},
		// Relations and possessions.
		{"My manager is Li.", []want{{"Ana's manager is Li", "Ana", "relationship:manager", "Li", false, false, memory.KindEntity, 0.9, core}}},
		{"Li is my manager.", []want{{"Li is Ana's manager", "Ana", "relationship:manager", "Li", false, false, memory.KindEntity, 0.9, core}}},
		{"My wife Eva loves jazz.", []want{
			{"Ana's wife is Eva", "Ana", "relationship:wife", "Eva", false, false, memory.KindEntity, 0.9, core},
			{"Eva loves jazz", "Eva", "preference:jazz", "jazz", false, false, memory.KindPreference, 0.65, std}}},
		{"We have a dog named Rex.", []want{{"Ana and others have a dog named Rex", "Ana", "pet:dog", "Rex", false, false, memory.KindFact, 0.7, std}}},
		// Negation and dislikes.
		{"I hate olives.", []want{{"Ana hates olives", "Ana", "preference:olive", "olives", true, false, memory.KindPreference, 0.65, std}}},
		{"I never drink alcohol.", []want{{"Ana never drinks alcohol", "Ana", "diet:alcohol", "alcohol", true, false, memory.KindPreference, 0.8, std}}},
		// Hobbies, activities, education, identity.
		{"I've been learning guitar.", []want{{"Ana has been learning guitar", "Ana", "activity:guitar", "guitar", false, false, memory.KindInterest, 0.6, std}}},
		{"I signed up for a pottery class last week.", []want{{"Ana signed up for a pottery class last week", "Ana", "activity:pottery class", "pottery class", false, false, memory.KindInterest, 0.6, std}}},
		{"I graduated from MIT.", []want{{"Ana graduated from MIT", "Ana", "education:mit", "MIT", false, false, memory.KindFact, 0.7, std}}},
		{"I'm originally from Brazil.", []want{{"Ana is originally from Brazil", "Ana", "origin", "Brazil", false, false, memory.KindEntity, 0.8, core}}},
		{"I'm 34.", []want{{"Ana is 34", "Ana", "age", "34", false, false, memory.KindEntity, 0.8, std}}},
		// Casual speech drops the subject.
		{"Lost my job at the bakery yesterday.", []want{{"Ana lost their job at the bakery yesterday", "Ana", "employer", "bakery", true, true, memory.KindFact, 0.8, std}}},
		// Transient states and feelings.
		{"I'm exhausted.", []want{{"Ana is exhausted", "Ana", "state:exhausted", "exhausted", false, false, memory.KindFact, 0.3, eph}}},
		{"I'm so excited about the new climbing gym downtown.", []want{{"Ana is so excited about the new climbing gym downtown", "Ana", "", "", false, false, memory.KindFact, 0.4, eph}}},
		// Issue 43's known errors. "We" includes the speaker: the fact is
		// about them, never about "Ana and others".
		{"We went hiking with the kids last weekend.", []want{{"Ana and others went hiking with the kids last weekend", "Ana", "activity:hiking", "hiking", false, false, memory.KindInterest, 0.6, std}}},
		// A closed-class word opens a sentence capitalized, and is never a
		// name: no subject "Probably One", "In", "One".
		{"Probably One of the best days of my life.", nil},
		{"In the end it was worth it.", nil},
		{"One is more adventurous while the other is more reserved.", nil},
		// A state of the moment is not a fact to keep.
		{"I am so tired today, long day.", nil},
		{"I'm exhausted tonight.", nil},
		// Statements that were missed.
		{"I'm vegetarian", []want{{"Ana is vegetarian", "Ana", "diet:vegetarian", "vegetarian", false, false, memory.KindPreference, 0.8, std}}},
		{"Our team uses Jira.", []want{{"Ana's team uses Jira", "Ana's team", "use:jira", "Jira", false, false, memory.KindFact, 0.6, std}}},
		{"We use Jira at work.", []want{{"Ana and others use Jira at work", "Ana", "use:jira", "Jira", false, false, memory.KindFact, 0.6, std}}},
		// A switch of tools: the old one denied, as a change.
		{"I switched to VS Code, I do not use Neovim anymore.", []want{
			{"Ana switched to VS Code", "Ana", "use:vs code", "VS Code", false, true, memory.KindFact, 0.6, std},
			{"Ana does not use Neovim anymore", "Ana", "use:neovim", "Neovim", true, true, memory.KindFact, 0.6, std}}},
		// Nothing to keep.
		{"I'm so proud of you!", nil},
		{"I love it!", nil},
		{"I think so too.", nil},
		{"Gather your documents first.", nil},
	}
	for _, tc := range tests {
		facts, err := extract.Local{}.Extract(ctx, []extract.Turn{{ID: "m1", Speaker: "Ana", Text: tc.said}})
		if err != nil {
			t.Fatal(err)
		}
		if len(facts) != len(tc.want) {
			t.Errorf("%q: %d facts, want %d: %+v", tc.said, len(facts), len(tc.want), facts)
			continue
		}
		for i, w := range tc.want {
			f := facts[i]
			got := want{f.Text, f.Subject, f.Slot, f.Value, f.Negated, f.Change, f.Kind, f.Importance, f.Durability}
			if got != w || len(f.Sources) != 1 || f.Sources[0] != "m1" {
				t.Errorf("%q:\n got  %+v\n want %+v", tc.said, got, w)
			}
		}
	}
}

func TestTransient(t *testing.T) {
	tests := []struct {
		turn      string
		transient bool
	}{
		{"Hi!", true},
		{"Hey Caroline! Good to see you! How have you been?", true},
		{"Thanks so much", true},
		{"ok", true},
		{"lol yes", true},
		{"Wow, that's so cool! What happened next?", true},
		{"Sounds good, see you tomorrow!", true},
		{"Thanks, Ana, so much!", true},
		{"What's your favourite food?", true},
		{"I'm good", true},
		{"I'm exhausted.", false},
		{"Thanks! I moved to Berlin last week.", false},
		{"Hey! I just adopted a puppy.", false},
		{"My manager is Li.", false},
	}
	for _, tc := range tests {
		if got := extract.Transient(tc.turn); got != tc.transient {
			t.Errorf("Transient(%q) = %v, want %v", tc.turn, got, tc.transient)
		}
	}
	turns := []extract.Turn{{ID: "1", Speaker: "Ana", Text: "Hi Bo!"}, {ID: "2", Speaker: "Ana", Text: "I moved to Berlin."}, {ID: "3", Text: "I moved to Rome."}}
	if got := extract.Useful(turns); len(got) != 1 || got[0].ID != "2" {
		t.Errorf("Useful kept %+v, want turn 2 only (1 is a greeting, 3 has no speaker)", got)
	}
	// A question stays as the context of the answer that follows it.
	turns = []extract.Turn{{ID: "q", Speaker: "Bo", Text: "How long have you been married?"}, {ID: "a", Speaker: "Ana", Text: "Five years in June!"},
		{ID: "q2", Speaker: "Bo", Text: "Wow! And the kids?"}, {ID: "a2", Speaker: "Ana", Text: "Haha, thanks."}}
	var ids []string
	for _, u := range extract.Useful(turns) {
		ids = append(ids, u.ID)
	}
	if strings.Join(ids, ",") != "q,a" {
		t.Errorf("Useful kept %v, want q,a (a question before an answer; not one before small talk)", ids)
	}
}

// TestAnswerAcrossTurns: an answer that is only a fragment is read with the
// question before it; a full answer, a question to nobody in particular
// and an answer by the one who asked are read on their own.
func TestAnswerAcrossTurns(t *testing.T) {
	tests := []struct {
		question, answer string
		want             []want // facts of the answer (subject Ana)
	}{
		{"Where do you live now?", "Utrecht, near the Dom tower.", []want{{"Ana now lives in Utrecht, near the Dom tower", "Ana", "home", "Utrecht", false, true, memory.KindFact, 0.8, memory.DurabilityStandard}}},
		{"Where are you from?", "Porto!", []want{{"Ana is from Porto", "Ana", "origin", "Porto", false, false, memory.KindEntity, 0.8, memory.DurabilityCore}}},
		{"What's your favourite food?", "Ramen.", []want{{"Ana's favourite food is Ramen", "Ana", "favorite:food", "Ramen", false, false, memory.KindPreference, 0.7, memory.DurabilityStandard}}},
		{"Which editor do you use?", "VS Code.", []want{{"Ana uses VS Code", "Ana", "use:vs code", "VS Code", false, false, memory.KindFact, 0.6, memory.DurabilityStandard}}},
		// A full answer is read as said.
		{"Where do you live now?", "I live in Utrecht.", []want{{"Ana lives in Utrecht", "Ana", "home", "Utrecht", false, false, memory.KindFact, 0.8, memory.DurabilityStandard}}},
		// Not an answer: no question, or a reaction.
		{"I went to Utrecht.", "Utrecht, near the Dom tower.", nil},
		{"Where do you live now?", "Haha, good question.", nil},
		{"What do you do?", "Mostly painting.", nil},
	}
	for _, tc := range tests {
		facts, err := extract.Local{}.Extract(ctx, []extract.Turn{{ID: "q", Speaker: "Bo", Text: tc.question}, {ID: "a", Speaker: "Ana", Text: tc.answer}})
		if err != nil {
			t.Fatal(err)
		}
		var got []want
		for _, f := range facts {
			if f.Subject == "Ana" {
				got = append(got, want{f.Text, f.Subject, f.Slot, f.Value, f.Negated, f.Change, f.Kind, f.Importance, f.Durability})
				if f.Sources[0] != "a" {
					t.Errorf("%q: sources %v, want the answer first", tc.answer, f.Sources)
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%q / %q:\n got  %+v\n want %+v", tc.question, tc.answer, got, tc.want)
		}
	}
	// The one who asked does not answer themself.
	facts, _ := extract.Local{}.Extract(ctx, []extract.Turn{{ID: "q", Speaker: "Ana", Text: "Where do I live now?"}, {ID: "a", Speaker: "Ana", Text: "Utrecht."}})
	if len(facts) != 0 {
		t.Errorf("a speaker's own question answered: %+v", facts)
	}
}

// FuzzLocalExtract: on any two turns (a question and its answer, say) the
// offline extractor does not panic, and every fact has a subject and cites
// only the turns it was given.
func FuzzLocalExtract(f *testing.F) {
	f.Add("Where do you live now?", "Utrecht, near the Dom tower.")
	f.Add("What's your favourite food?", "Ramen.")
	f.Add("", "")
	f.Add("?", "I switched to VS Code, I do not use Neovim anymore.")
	f.Fuzz(func(t *testing.T, q, a string) {
		facts, err := extract.Local{}.Extract(ctx, []extract.Turn{{ID: "q", Speaker: "Bo", Text: q}, {ID: "a", Speaker: "Ana", Text: a}})
		if err != nil {
			t.Fatal(err)
		}
		for _, fc := range facts {
			if fc.Subject == "" || len(fc.Sources) == 0 {
				t.Fatalf("%+v", fc)
			}
			for _, s := range fc.Sources {
				if s != "q" && s != "a" {
					t.Fatalf("source %q", s)
				}
			}
		}
	})
}
