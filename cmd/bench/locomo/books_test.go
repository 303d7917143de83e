package main

import (
	"reflect"
	"testing"

	"github.com/agentmem/agentmem/internal/locomo"
)

func TestBookGolds(t *testing.T) {
	conv := &locomo.Conversation{Name: "c", SpeakerA: "Melanie", SpeakerB: "Joanna", Questions: []locomo.Question{
		{Question: "What books has Melanie read?", Answer: `"Nothing is Impossible", "Charlotte's Web"`},
		{Question: "What book recommendations has Joanna given to Nate?", Answer: `"Little Women",'A Court of Thorns andRoses'.`},
		{Question: "What book is Melanie currently reading?", Answer: "The Lean Startup"},
		{Question: "What kind of books does Joanna enjoy?", Answer: "Adventures and magic"},
		{Question: "When did Melanie read the book?", Answer: "2022"},
		{Question: "What books has Nate read?", Answer: `"Dune"`},
	}}
	want := []bookGold{
		{conv: "c", speaker: "Melanie", question: "What books has Melanie read?", titles: []string{"Nothing is Impossible", "Charlotte's Web"}, speakers: []string{"Melanie", "Joanna"}},
		{conv: "c", speaker: "Joanna", question: "What book recommendations has Joanna given to Nate?", titles: []string{"Little Women", "A Court of Thorns andRoses"}, speakers: []string{"Melanie", "Joanna"}},
		{conv: "c", speaker: "Melanie", question: "What book is Melanie currently reading?", titles: []string{"The Lean Startup"}, speakers: []string{"Melanie", "Joanna"}},
	}
	if got := bookGolds(conv); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestFoundTitle(t *testing.T) {
	found := []string{"charlotte's web", "lean startup", "a court of thorns and roses"}
	for _, tt := range []struct {
		title string
		want  bool
	}{
		{"Charlotte's Web", true},
		{"The Lean Startup", true},
		{"A Court of Thorns andRoses", true},
		{"Little Women", false},
		{"", false},
	} {
		if got := foundTitle(found, tt.title); got != tt.want {
			t.Errorf("%q: %v, want %v", tt.title, got, tt.want)
		}
	}
}
