package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/internal/locomo"
	"github.com/agentmem/agentmem/pkg/memory"
)

// The list questions, in the spirit of KnowPro's books demo: "List every X
// that Y mentioned", built from the entity index. For each speaker Y and
// each entity type X with at least minListItems entities in Y's turns,
// the items are those entities' names; the demo asks the question twice
// at the same token budget, once for the prompt context of /v1/context
// (the structured section of entities and topics, then memories) and once
// for a plain hybrid context (the hybrid search's turns in rank order
// until the budget is spent), and reports the fraction of the items each
// context names, and the tokens each used.
//
// The items come from this service's own offline extractor, so the figure
// says how well each context surfaces what the index knows, not how well
// the extractor reads: that is bench-extract's.
const (
	minListItems = 3
	maxListItems = 100
)

// listQuestion is one "List every X that Y mentioned" question.
type listQuestion struct {
	conv, speaker, typ string
	items              []string
}

// get is a GET of the API.
func (c client) get(path string, q url.Values, out any) error {
	req, _ := http.NewRequest("GET", c.url+path+"?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+c.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s: %d", path, res.StatusCode)
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// listQuestions builds the questions of conv from the entities of each
// speaker's turns.
func listQuestions(c client, conv *locomo.Conversation) ([]listQuestion, error) {
	speakers := map[string]bool{}
	for _, s := range conv.Sessions {
		for _, t := range s.Turns {
			speakers[t.Speaker] = true
		}
	}
	var out []listQuestion
	for _, sp := range slices.Sorted(maps.Keys(speakers)) {
		byType, err := speakerEntities(c, sp)
		if err != nil {
			return nil, err
		}
		for _, t := range slices.Sorted(maps.Keys(byType)) {
			if items := byType[t]; len(items) >= minListItems && len(items) <= maxListItems {
				out = append(out, listQuestion{conv: conv.Name, speaker: sp, typ: t, items: items})
			}
		}
	}
	return out, nil
}

// speakerEntities returns the names of the entities of speaker sp's turns
// by type, from the entity index (GET /v1/knowledge/entities), the
// speaker and the entities named as their type left out.
func speakerEntities(c client, sp string) (map[string][]string, error) {
	byType := map[string][]string{}
	cursor := ""
	for {
		var page struct {
			Entities   []memory.KnowledgeItem `json:"entities"`
			NextCursor string                 `json:"nextCursor"`
		}
		q := url.Values{"entityId": {sp}, "limit": {"500"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		if err := c.get("/v1/knowledge/entities", q, &page); err != nil {
			return nil, err
		}
		for _, e := range page.Entities {
			for _, t := range e.Types {
				if !strings.EqualFold(e.Name, sp) && !strings.EqualFold(t, e.Name) {
					byType[t] = append(byType[t], e.Name)
				}
			}
		}
		if page.NextCursor == "" {
			return byType, nil
		}
		cursor = page.NextCursor
	}
}

// named returns the fraction of items that text names: the item as a
// word, or starting a word (a plural, a possessive).
func named(items []string, text string) float64 {
	text = strings.ToLower(text)
	n := 0
	for _, it := range items {
		re := regexp.MustCompile(`(^|[^\pL\pN])` + regexp.QuoteMeta(strings.ToLower(it)))
		if re.MatchString(text) {
			n++
		}
	}
	return float64(n) / float64(len(items))
}

// listContexts answers q with both contexts at budget tokens: the recall
// and tokens of the knowledge context, then of the hybrid one.
func listContexts(c client, q listQuestion, budget int) (kRecall float64, kTokens int, hRecall float64, hTokens int, err error) {
	question := fmt.Sprintf("List every %s that %s mentioned.", q.typ, q.speaker)
	var ctxRes struct {
		Context    string `json:"context"`
		UsedTokens int    `json:"usedTokens"`
	}
	if err = c.post("/v1/context", map[string]any{"query": question, "budgetTokens": budget}, &ctxRes); err != nil {
		return
	}
	var res searchResponse
	if err = c.post("/v1/search", map[string]any{"query": question, "k": memory.MaxK, "mode": "hybrid"}, &res); err != nil {
		return
	}
	var b strings.Builder
	for _, r := range res.Results {
		line := r.Memory.Content.Text
		if r.Memory.EntityID != "" {
			line = r.Memory.EntityID + ": " + line
		}
		t := memory.EstimateTokens(line) + 1
		if hTokens+t > budget {
			break
		}
		hTokens += t
		b.WriteString(line + "\n")
	}
	return named(q.items, ctxRes.Context), ctxRes.UsedTokens, named(q.items, b.String()), hTokens, nil
}

// runLists runs the list questions of every conversation at each budget
// and prints the table and a few examples.
func runLists(clients map[string]client, convs []*locomo.Conversation, budgets []int) error {
	var qs []listQuestion
	for _, conv := range convs {
		got, err := listQuestions(clients[conv.Name+"/turns"], conv)
		if err != nil {
			return err
		}
		qs = append(qs, got...)
	}
	if len(qs) == 0 {
		return fmt.Errorf("list questions: the entity index gave no type with %d or more entities for any speaker", minListItems)
	}
	items := 0
	for _, q := range qs {
		items += len(q.items)
	}
	fmt.Printf("\n## List questions (\"List every X that Y mentioned\", from the entity index): %d questions, %d items\n\n", len(qs), items)
	fmt.Println("| budget | context | item recall | tokens used (mean) |")
	fmt.Println("|---:|---|---:|---:|")
	for _, budget := range budgets {
		var kr, hr float64
		var kt, ht int
		type ex struct {
			q      listQuestion
			kr, hr float64
		}
		var exs []ex
		for _, q := range qs {
			a, b, c, d, err := listContexts(clients[q.conv+"/turns"], q, budget)
			if err != nil {
				return err
			}
			kr, kt, hr, ht = kr+a, kt+b, hr+c, ht+d
			exs = append(exs, ex{q, a, c})
		}
		n := float64(len(qs))
		fmt.Printf("| %d | knowledge (/v1/context) | %.3f | %.0f |\n", budget, kr/n, float64(kt)/n)
		fmt.Printf("| %d | hybrid turns | %.3f | %.0f |\n", budget, hr/n, float64(ht)/n)
		if budget == budgets[len(budgets)-1] {
			sort.Slice(exs, func(i, j int) bool { return len(exs[i].q.items) > len(exs[j].q.items) })
			fmt.Printf("\nlargest lists at %d tokens:\n\n", budget)
			for _, e := range exs[:min(5, len(exs))] {
				fmt.Printf("- %s, %s, %q: %d items (%s...), knowledge %.2f, hybrid %.2f\n", e.q.conv, e.q.speaker, e.q.typ,
					len(e.q.items), strings.Join(e.q.items[:min(4, len(e.q.items))], ", "), e.kr, e.hr)
			}
		}
	}
	return nil
}
