package main

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/internal/locomo"
)

// The books demo (issue 42), after KnowPro's: "List every book X
// mentioned", answered from the entity index alone, with the entities of
// X's turns typed book or novel. Where a LoCoMo question asks for books
// (its text says "book" and its answer quotes titles, or it asks "what
// book"), the books found for the speaker the question names are scored
// against its answer.

// bookTypes are the entity types that make a book.
var bookTypes = []string{"book", "novel"}

// bookGold is a LoCoMo question about a speaker's books, with the titles
// of its answer.
type bookGold struct {
	conv, speaker, question string
	titles                  []string
	speakers                []string // the conversation's
}

var (
	bookWord = regexp.MustCompile(`(?i)\bbooks?\b`)
	// quoted titles: "Charlotte's Web", or 'Little Women' after a space,
	// a comma or the start.
	quotedTitle = regexp.MustCompile(`"([^"]+)"|(?:^|[\s,])'([^']+)'`)
)

// bookGolds returns conv's questions about books whose answer names
// titles.
func bookGolds(conv *locomo.Conversation) []bookGold {
	var out []bookGold
	for _, q := range conv.Questions {
		if !bookWord.MatchString(q.Question) || q.Answer == "" {
			continue
		}
		var titles []string
		for _, m := range quotedTitle.FindAllStringSubmatch(q.Answer, -1) {
			titles = append(titles, strings.TrimSpace(m[1]+m[2]))
		}
		if len(titles) == 0 && strings.HasPrefix(strings.ToLower(q.Question), "what book ") {
			titles = []string{strings.TrimSpace(strings.Trim(q.Answer, ". "))}
		}
		sp := firstSpeaker(q.Question, conv.SpeakerA, conv.SpeakerB)
		if len(titles) > 0 && sp != "" {
			out = append(out, bookGold{conv: conv.Name, speaker: sp, question: q.Question, titles: titles,
				speakers: []string{conv.SpeakerA, conv.SpeakerB}})
		}
	}
	return out
}

// firstSpeaker returns the speaker the text names first, "" if neither.
func firstSpeaker(text string, speakers ...string) string {
	best, at := "", len(text)
	for _, sp := range speakers {
		if i := strings.Index(text, sp); sp != "" && i >= 0 && i < at {
			best, at = sp, i
		}
	}
	return best
}

// squash is s in lower case, letters and digits only: titles compare
// whatever their spacing, punctuation and quotes ("andRoses").
func squash(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// foundTitle reports whether a book found names title: one contains the
// other, squashed ("The Lean Startup" and "Lean Startup").
func foundTitle(found []string, title string) bool {
	t := squash(title)
	return slices.ContainsFunc(found, func(f string) bool {
		f = squash(f)
		return f != "" && t != "" && (strings.Contains(f, t) || strings.Contains(t, f))
	})
}

// speakerBooks returns the books of sp's turns: the entities typed book or
// novel, each name once.
func speakerBooks(c client, sp string) ([]string, error) {
	byType, err := speakerEntities(c, sp)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, t := range bookTypes {
		for _, name := range byType[t] {
			if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, name) }) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// runBooks asks "List every book X mentioned" of every speaker and prints
// the books the entity index gives, then the gold questions scored.
func runBooks(clients map[string]client, convs []*locomo.Conversation) error {
	fmt.Printf("\n## Books (\"List every book X mentioned\", entities typed %s)\n\n", strings.Join(bookTypes, " or "))
	books := map[string][]string{} // conv/speaker -> books
	for _, conv := range convs {
		for _, sp := range []string{conv.SpeakerA, conv.SpeakerB} {
			got, err := speakerBooks(clients[conv.Name+"/turns"], sp)
			if err != nil {
				return err
			}
			books[conv.Name+"/"+sp] = got
			fmt.Printf("- %s, %s: %d: %s\n", conv.Name, sp, len(got), strings.Join(got, "; "))
		}
	}
	var golds []bookGold
	for _, conv := range convs {
		golds = append(golds, bookGolds(conv)...)
	}
	if len(golds) == 0 {
		fmt.Println("\n(no LoCoMo question of these files asks for books)")
		return nil
	}
	fmt.Println("\n| conversation | question | gold titles | found in the speaker's books | in the conversation's |")
	fmt.Println("|---|---|---|---|---:|")
	found, inConv, total := 0, 0, 0
	for _, g := range golds {
		var hit []string
		conv := 0
		var all []string
		for _, sp := range g.speakers {
			all = append(all, books[g.conv+"/"+sp]...)
		}
		for _, t := range g.titles {
			if foundTitle(books[g.conv+"/"+g.speaker], t) {
				hit = append(hit, t)
			}
			if foundTitle(all, t) {
				conv++
			}
		}
		found, inConv, total = found+len(hit), inConv+conv, total+len(g.titles)
		fmt.Printf("| %s | %s | %s | %s (%d/%d) | %d/%d |\n", g.conv, g.question, strings.Join(g.titles, "; "), strings.Join(hit, "; "),
			len(hit), len(g.titles), conv, len(g.titles))
	}
	fmt.Printf("\ngold titles found: %d of %d in the books of the speaker the question names, %d of %d in the conversation's\n",
		found, total, inConv, total)
	return nil
}
