package retrieval

import (
	"context"
	"slices"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/pkg/memory"
)

// MaxEntityNames bounds the capitalized words of a query checked against
// the entities the caller can see (one store read each).
const MaxEntityNames = 3

// EntityList is the entity list: when a query names someone who speaks
// in the memories ("What did Melanie paint recently?", where Melanie is
// the entityId of her own turns), the messages that person said that the
// keyword and semantic lists find, fused by RRF. In a conversation what a
// person did, owns or likes is mostly said by that person; the other
// speaker's turns share the words ("Wow, Mel, what a painting!") and crowd
// the unfiltered lists, most of all for questions whose answer is spread
// over several sessions. Memories about the person that the person did not
// say (a fact whose subject is the person) are not in the list: the
// keyword and semantic lists rank them by their own words.
//
// Turns of the speaker that speak of their listener more than of their
// speaker (AddressesListener) are left out: "What gave you the idea to
// paint it?" is Melanie's turn about Caroline's painting.
//
// A name is a capitalized word of the query (a possessive "'s" dropped),
// matched exactly against the messages' entityId (Query.Speakers); a
// query that names no speaker, or that a filter already binds to an
// entity, gets an empty list. A query that names several gets one only
// when it asks the same of each ("Did Jon and Gina both...", "in common",
// "each": asksEach): their lists taken in turn (interleave); otherwise
// neither alone answers it.
type EntityList struct {
	Index memory.Index
	Store memory.Store
}

// ListEntity is the entity list's name.
const ListEntity = "entity"

// Lists implements Retriever.
func (EntityList) Lists() []string { return []string{ListEntity} }

// Retrieve implements Retriever.
func (e EntityList) Retrieve(ctx context.Context, q *Query, _ []string) (map[string][]memory.Hit, error) {
	none := map[string][]memory.Hit{ListEntity: nil}
	found, err := q.Speakers(ctx, e.Store)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 || len(found) > 1 && !asksEach(q.Text) {
		return none, nil // two entities: neither alone answers, unless the question asks about each
	}
	lists := make([][]memory.Hit, len(found))
	for i, name := range found {
		f, _ := SaidBy(q.Filter, name)
		hits, err := hybridWithin(ctx, e.Index, e.Store, q, f, func(m *memory.Memory) bool {
			return !AddressesListener(m.Content.Text)
		})
		if err != nil {
			return nil, err
		}
		lists[i] = hits
	}
	return map[string][]memory.Hit{ListEntity: interleave(lists, q.K)}, nil
}

// asksEach reports whether a question about two entities asks the same
// of each ("Did Jon and Gina both...", "What do they have in common?").
func asksEach(text string) bool {
	t := " " + strings.Join(strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }), " ") + " "
	for _, w := range []string{"both", "in common", "each"} {
		if strings.Contains(t, " "+w+" ") {
			return true
		}
	}
	return false
}

// interleave takes the lists' hits in turn, first of each, then second,
// each memory once, at most k, scored by their new rank.
func interleave(lists [][]memory.Hit, k int) []memory.Hit {
	if len(lists) == 1 {
		return lists[0]
	}
	var out []memory.Hit
	seen := map[string]bool{}
	for i := 0; len(out) < k; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				more = true
				if !seen[l[i].ID] && len(out) < k {
					seen[l[i].ID] = true
					out = append(out, l[i])
				}
			}
		}
		if !more {
			break
		}
	}
	for i := range out {
		out[i].Score = 1 / float64(i+1)
	}
	return out
}

// AddressesListener reports whether a message speaks of the one it is
// said to more than of its speaker: more second-person words (you, your,
// you're...) than first-person ones (I, my, we, our...). Such a turn is
// about the listener ("Wow, that looks amazing! What gave you the idea to
// paint it?"), so it tells what the listener did, owns or likes, not the
// speaker; the entity list leaves it out. English pronouns only: in
// another language no turn counts as addressed, and the list keeps all.
func AddressesListener(text string) bool {
	you, me := 0, 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '’'
	}) {
		switch strings.ReplaceAll(w, "’", "'") {
		case "you", "your", "yours", "yourself", "yourselves", "you're", "you've", "you'd", "you'll", "ya", "u":
			you++
		case "i", "me", "my", "mine", "myself", "i'm", "i've", "i'd", "i'll",
			"we", "us", "our", "ours", "ourselves", "we're", "we've", "we'd", "we'll":
			me++
		}
	}
	return you > me
}

// Speakers returns the entities the query names that speak in the
// memories: its capitalized words (Names, at most MaxEntityNames) equal to
// the entityId of at least one message the query's filter selects, in the
// order named. A message's entityId is its speaker; another memory's is
// what it is about (a fact's subject), and a name that only such memories
// carry is not a speaker. It is resolved with store on first use (one
// indexed read per word) and shared by the lists that read it (the entity
// and knowledge lists). A query whose filter already binds an entity, or
// leaves messages out, names none.
func (q *Query) Speakers(ctx context.Context, store memory.Store) ([]string, error) {
	w := q.who
	w.once.Do(func() {
		if q.Filter.EntityID != "" {
			return
		}
		for _, name := range Names(q.Text, MaxEntityNames) {
			f, ok := SaidBy(q.Filter, name)
			if !ok {
				return
			}
			page, err := store.List(ctx, memory.ListQuery{Filter: f, Limit: 1})
			if err != nil {
				w.err = err
				return
			}
			if len(page.Memories) > 0 {
				w.names = append(w.names, name)
			}
		}
	})
	return w.names, w.err
}

// SaidBy narrows f to the messages speaker said: messages whose entityId
// is speaker. It reports false when f leaves messages out.
func SaidBy(f memory.Filter, speaker string) (memory.Filter, bool) {
	if len(f.Types) > 0 && !slices.Contains(f.Types, memory.TypeMessage) {
		return f, false
	}
	f.Types = []memory.Type{memory.TypeMessage}
	f.EntityID = speaker
	return f, true
}

// Names returns up to max distinct capitalized words of text, in order,
// without a possessive "'s" or surrounding punctuation, "I" left out.
func Names(text string, max int) []string {
	var out []string
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		for _, s := range []string{"'s", "’s", "'", "’"} {
			w = strings.TrimSuffix(w, s)
		}
		if w == "" || w == "I" {
			continue
		}
		r := []rune(w)
		if !unicode.IsUpper(r[0]) {
			continue
		}
		dup := false
		for _, o := range out {
			dup = dup || o == w
		}
		if dup {
			continue
		}
		out = append(out, w)
		if len(out) == max {
			break
		}
	}
	return out
}
