package retrieval

import (
	"context"
	"sort"
	"strings"
	"unicode"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
)

// ListDecompose is the decomposition list's name.
const ListDecompose = "decompose"

// MaxSubQueries bounds the sub-queries of one question (one embedding and
// one index search each).
const MaxSubQueries = 3

// Plan is how a question is answered in parts: the sub-queries it joins
// ("What did John do after the boot camp?" joins "What did John do" and
// "the boot camp"), and whether its answer is spread over time (Spread:
// "What activities does Melanie partake in?", "How many times...", "Where
// has Melanie camped?"), so that the best turn of each conversation
// session answers a part.
type Plan struct {
	Subs   []string
	Spread bool
}

// Decomposer plans a question. Decompose is the offline one; an LLM
// translator may give another.
type Decomposer func(ctx context.Context, text string) (Plan, error)

// DecomposeList is the decomposition list (issue 43's multi-hop by
// decomposition): a question that joins two events or asks for many
// answers over time is split, each part retrieved by keyword and semantic
// search fused, and the parts' lists taken in turn (interleave), so that
// every part places its best memories high. A question with no parts gets
// an empty list, which changes no ranking.
//
// The parts of a Spread question are the conversation's sessions (a
// memory's session, else its room): the hybrid search of the whole
// question, restricted to what the one speaker it names said when it
// names one (as the entity list), is reordered so that the best memory of
// each session comes first, then the second of each, and so on. The
// answer to "What books has Melanie read?" is said once in each of
// several sessions, and the turns around the best one crowd the lists.
type DecomposeList struct {
	Index    memory.Index
	Store    memory.Store
	Embedder memory.Embedder
	// Plan plans a question (nil: Decompose).
	Plan Decomposer
}

// Lists implements Retriever.
func (DecomposeList) Lists() []string { return []string{ListDecompose} }

// Retrieve implements Retriever.
func (d DecomposeList) Retrieve(ctx context.Context, q *Query, _ []string) (map[string][]memory.Hit, error) {
	plan := Decompose(q.Text)
	if d.Plan != nil {
		p, err := d.Plan(ctx, q.Text)
		if err != nil {
			return nil, err
		}
		plan = p
	}
	var lists [][]memory.Hit
	for _, sub := range plan.Subs[:min(len(plan.Subs), MaxSubQueries)] {
		sq := NewQuery(sub, q.Filter, q.K, func(ctx context.Context) ([]float32, error) {
			vs, err := d.Embedder.Embed(ctx, []string{sub}, memory.PurposeQuery)
			if err != nil {
				return nil, memory.Errorf(memory.EUNAVAILABLE, "embedder: %v", err)
			}
			return vs[0], nil
		})
		hits, err := hybridWithin(ctx, d.Index, d.Store, sq, q.Filter, nil)
		if err != nil {
			return nil, err
		}
		lists = append(lists, hits)
	}
	if plan.Spread {
		hits, err := d.spread(ctx, q)
		if err != nil {
			return nil, err
		}
		lists = append(lists, hits)
	}
	if len(lists) == 0 {
		return map[string][]memory.Hit{ListDecompose: nil}, nil
	}
	return map[string][]memory.Hit{ListDecompose: interleave(lists, q.K)}, nil
}

// spread is the hybrid search of q (within what its one named speaker
// said, when it names one) with the best memory of each session first.
func (d DecomposeList) spread(ctx context.Context, q *Query) ([]memory.Hit, error) {
	f := q.Filter
	found, err := q.Speakers(ctx, d.Store)
	if err != nil {
		return nil, err
	}
	keep := func(*memory.Memory) bool { return true }
	if len(found) == 1 {
		f, _ = SaidBy(f, found[0])
		keep = func(m *memory.Memory) bool { return !AddressesListener(m.Content.Text) }
	}
	session := map[string]string{}
	hits, err := hybridWithin(ctx, d.Index, d.Store, q, f, func(m *memory.Memory) bool {
		if !keep(m) {
			return false
		}
		session[m.ID] = m.SessionID
		if session[m.ID] == "" {
			session[m.ID] = m.RoomID
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	return bySession(hits, session), nil
}

// bySession orders hits so that each session's best comes first, in the
// hits' order, then each session's second, and so on; a hit of no session
// is a session of its own. Scores become 1/rank.
func bySession(hits []memory.Hit, session map[string]string) []memory.Hit {
	nth := map[string]int{}
	round := make([]int, len(hits))
	for i, h := range hits {
		s := session[h.ID]
		if s == "" {
			s = "\x00" + h.ID
		}
		round[i] = nth[s]
		nth[s]++
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return round[order[a]] < round[order[b]] })
	out := make([]memory.Hit, len(hits))
	for i, j := range order {
		out[i] = memory.Hit{ID: hits[j].ID, Score: 1 / float64(i+1)}
	}
	return out
}

// Decompose is the offline planner, rules of English questions:
//   - a question that asks for many answers, or how many, is Spread: "how
//     many" or "how often"; a wh-word before a plural noun ("What books",
//     "Which cities", "What kinds of music"); "What are/were" ("What are
//     Joanna's hobbies?"); the present perfect of experience after a
//     wh-word ("Where has Melanie camped?", "What has John done...");
//     and a question about each of several ("both", "in common");
//   - a question that joins an event to another by time ("after",
//     "before", "since", "until", "during" and a noun phrase) has two
//     parts: the question without the join, and the event it is joined
//     to.
func Decompose(text string) Plan {
	words := questionWords(text)
	var p Plan
	p.Spread = asksMany(words) || asksEach(text)
	if main, event, ok := timeJoin(text); ok {
		p.Subs = []string{main, event}
	}
	return p
}

// AsksMany reports whether a question asks for many answers over time
// (Decompose's Spread).
func AsksMany(text string) bool { return Decompose(text).Spread }

// questionWords are text's words in lower case, apostrophes kept.
func questionWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’'
	})
}

// auxiliaries are the verbs that follow a wh-word in a question.
var auxiliaries = map[string]bool{"is": true, "was": true, "are": true, "were": true, "do": true, "does": true,
	"did": true, "has": true, "have": true, "had": true, "will": true, "would": true, "can": true, "could": true,
	"should": true, "might": true, "may": true}

// asksMany reports whether a question's words ask for many answers.
func asksMany(w []string) bool {
	for i := 0; i+1 < len(w); i++ {
		if w[i] == "how" && (w[i+1] == "many" || w[i+1] == "often") {
			return true
		}
	}
	wh := -1
	for i, x := range w {
		if x == "what" || x == "which" || x == "where" || x == "who" {
			wh = i
			break
		}
	}
	if wh < 0 || wh+1 >= len(w) {
		return false
	}
	next := w[wh+1]
	switch {
	case next == "are" || next == "were":
		return w[wh] == "what" || w[wh] == "which"
	case next == "has" || next == "have":
		return true // the present perfect of experience: "Where has Melanie camped?"
	case auxiliaries[next]:
		return false
	}
	// "What kinds of music", "What type of volunteering": the noun after "of".
	if (next == "kinds" || next == "types" || next == "sorts") && wh+2 < len(w) && w[wh+2] == "of" {
		return true
	}
	return plural(next)
}

// plural reports whether w is a plural noun by its form.
func plural(w string) bool {
	if en.IrregularPlural(w) {
		return en.Singular(w) != w
	}
	return len(w) > 3 && en.Singular(w) != w
}

// timeJoins are the words that join an event to another by time.
var timeJoins = []string{"after", "before", "since", "until", "during"}

// timeJoin splits a question at a time join followed by a noun phrase
// ("the", "a", "his"...), into the question without the join and the
// event ("When did Melanie go on a hike after the roadtrip?" → "When did
// Melanie go on a hike", "the roadtrip").
func timeJoin(text string) (string, string, bool) {
	t := strings.TrimRight(strings.TrimSpace(text), "?.! ")
	lower := strings.ToLower(t)
	for _, j := range timeJoins {
		i := strings.Index(lower, " "+j+" ")
		if i <= 0 {
			continue
		}
		main, event := strings.TrimSpace(t[:i]), strings.TrimSpace(t[i+len(j)+2:])
		first := strings.ToLower(strings.Fields(event + " x")[0])
		switch first {
		case "the", "a", "an", "his", "her", "their", "my", "our", "your", "its":
		default:
			continue
		}
		if len(questionWords(main)) < 3 || len(questionWords(event)) < 2 {
			continue
		}
		return main, event, true
	}
	return "", "", false
}
