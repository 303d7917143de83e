package query

import "testing"

func TestAsksWhen(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"When did Caroline go to the LGBTQ support group?", true},
		{"when is Ana moving?", true},
		{"What year did Jon start his studio?", true},
		{"Which month was the fair?", true},
		{"Which weekend did Bo go camping?", true},
		{"What decade did Ana grow up in?", true},
		{"How long has Caroline had her current group of friends?", true},
		{"How long ago was the race?", true},
		{"Since when does Bo play chess?", true},
		{"How many years has Jon been dancing?", true},
		{"How many weeks ago did Gina open her store?", true},
		{"How much time did Ana spend in Lisbon?", true},
		{"How much money did Gina raise?", false},
		{"How many days a week does Ana run?", false},
		{"How many hours per day does Bo practise?", false},
		{"How many times each month does Jon teach?", false},
		{"How many days ago did Ana run a marathon?", true},
		{"How many dogs does Melanie have?", false},
		{"What did Melanie paint?", false},
		{"How many children does Melanie have?", false},
		{"When I was a kid, what did I like?", false},
		{"What does Ana do when she is stressed?", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := AsksWhen(tc.text); got != tc.want {
			t.Errorf("AsksWhen(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

func TestStatesTime(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"I went to a LGBTQ support group yesterday and it was so powerful.", true},
		{"Last Fri I finally took my kids to a pottery workshop.", true},
		{"I've known these friends for 4 years, since I moved from my home country.", true},
		{"Seven years now, and I've finally found my real muses.", true},
		{"We went camping with my fam two weekends ago.", true},
		{"We're thinking about going camping next month.", true},
		{"My daughter's birthday is on 13 October 2023.", true},
		{"A lot's happened - I just got accepted for a fashion internship!", true}, // the speaker's present
		{"We've recently moved into a bigger flat.", true},
		{"I'm currently reading \"The Lean Startup\".", true},
		{"Just got back from a trip to Rome!", true}, // "just" and a past: the subject left out
		{"I've been working hard and just teamed up with a local artist.", true},
		{"It's just a hobby, I paint whenever I can.", false}, // "just" not after a subject nor before a past
		{"I just wanted to say thanks for the book.", false},  // a wish, not an event
		{"I'm just amazed by your work.", false},
		{"Things have been hectic lately.", false}, // too vague to date anything
		{"I love painting sunsets, the colors are so calming.", false},
		{"The 2 younger kids love nature.", false},
		{"Wow, that rocks! What's the main idea of your art?", false},
	}
	for _, tc := range tests {
		if got := StatesTime(tc.text); got != tc.want {
			t.Errorf("StatesTime(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}
