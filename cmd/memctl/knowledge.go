package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

const knowledgeUsage = `usage: memctl knowledge <search|entities|topics|terms> -org ORG [flags]

  search   [-query JSON | QUESTION...]   entities, topics, actions and memories matching an
                                         expression or a question (translated by the LLM when
                                         LLM_PROVIDER is set, else offline)
  entities [-type T] [-prefix P | -name N] [-cursor C]   entities in name order, with counts
  topics   [-prefix P | -name N] [-cursor C]             topics in name order, with counts
  terms    [PREFIX]                                      completions, most frequent first

common flags: -org ORG (required), -agent AGENT (read as a key bound to that agent),
  -scope AGENT|_org (one agent's scope, or the org scope only), -room R, -session S,
  -start T, -end T (RFC 3339 or ms), -limit N, -json (the API's JSON instead of tables)`

// knowledgeCmd explores the knowledge of one org from a terminal, reading
// the store the configuration names (no server needed), with the same use
// case and the same tenancy rules as /v1/knowledge/*.
func knowledgeCmd(ctx context.Context, args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%s", knowledgeUsage)
	}
	sub := args[0]
	if sub != "search" && sub != "entities" && sub != "topics" && sub != "terms" {
		return fmt.Errorf("knowledge: unknown command %q\n%s", sub, knowledgeUsage)
	}
	fs := flag.NewFlagSet("knowledge "+sub, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	org := fs.String("org", "", "the org to explore")
	agent := fs.String("agent", "", "read as a key bound to this agent")
	scope := fs.String("scope", "", "one agent's scope, or _org for the org scope only")
	room := fs.String("room", "", "the memories of one room")
	session := fs.String("session", "", "the memories of one session")
	start := fs.String("start", "", "memories created at or after (RFC 3339 or ms)")
	end := fs.String("end", "", "memories created before (RFC 3339 or ms)")
	limit := fs.Int("limit", 0, "most results")
	asJSON := fs.Bool("json", false, "print the API's JSON")
	expr := fs.String("query", "", "search: a query expression (JSON)")
	typ := fs.String("type", "", "entities: of this type")
	prefix := fs.String("prefix", "", "entities, topics: names starting with")
	name := fs.String("name", "", "entities, topics: this name only")
	cursor := fs.String("cursor", "", "entities, topics: the next page of a previous call")
	if err := fs.Parse(args[1:]); err != nil {
		return fmt.Errorf("knowledge %s: %w\n%s", sub, err, knowledgeUsage)
	}
	if *org == "" {
		return fmt.Errorf("knowledge %s: -org is required", sub)
	}
	c := memory.Caller{OrgID: *org, AgentID: *agent}
	f := memory.Filter{AgentID: *scope, RoomID: *room, SessionID: *session}
	var err error
	if f.Start, err = millis("start", *start); err != nil {
		return err
	}
	if f.End, err = millis("end", *end); err != nil {
		return err
	}
	x, closeStore, err := openExplorer(ctx, sub == "search")
	if err != nil {
		return err
	}
	defer closeStore()

	var res any
	switch sub {
	case "search":
		req := knowledge.SearchRequest{Text: strings.Join(fs.Args(), " "), Limit: *limit, Filter: f}
		if *expr != "" {
			req.Query = json.RawMessage(*expr)
		}
		r, err := x.Search(ctx, c, req)
		if err != nil {
			return err
		}
		if !*asJSON {
			printSearch(out, r)
			return nil
		}
		res = r
	case "entities", "topics":
		kind := memory.KnowledgeEntity
		if sub == "topics" {
			kind = memory.KnowledgeTopic
		}
		p, err := x.List(ctx, c, knowledge.ListRequest{Kind: kind, Filter: f, Type: *typ, Prefix: *prefix, Name: *name, Cursor: *cursor, Limit: *limit})
		if err != nil {
			return err
		}
		if !*asJSON {
			printItems(out, p)
			return nil
		}
		res = map[string]any{sub: p.Items, "nextCursor": p.Next}
	case "terms":
		hs, err := x.Terms(ctx, c, knowledge.TermsRequest{Prefix: strings.Join(fs.Args(), " "), Filter: f, Limit: *limit, Kinds: true})
		if err != nil {
			return err
		}
		if !*asJSON {
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TERM\tKIND\tROLE\tCOUNT")
			for _, h := range hs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\n", h.Term, h.Kind, h.Role, h.Count)
			}
			return tw.Flush()
		}
		res = map[string]any{"terms": hs}
	}
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(res)
}

// openExplorer opens the store the configuration names (SQLite in
// DATA_DIR, or DynamoDB with BACKEND=aws) and, for searches, the
// configured LLM; nothing else (no index, no embedder).
func openExplorer(ctx context.Context, withLLM bool) (*knowledge.Explorer, func(), error) {
	cfg, err := config.FromEnv()
	if err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var store memory.Store
	closeStore := func() {}
	switch cfg.Store.Backend {
	case config.BackendAWS:
		s, err := aws.OpenStore(ctx, cfg.Store, cfg.AWS)
		if err != nil {
			return nil, nil, err
		}
		store = s
	default:
		s, err := local.OpenStore(cfg.DataDir)
		if err != nil {
			return nil, nil, err
		}
		store, closeStore = s, func() { s.Close() }
	}
	var model memory.LLM
	if withLLM {
		if model, err = llm.New(ctx, cfg.LLM, cfg.AWS); err != nil {
			closeStore()
			return nil, nil, err
		}
	}
	x := wiring.KnowledgeExplorer(store, model, log)
	if x == nil {
		closeStore()
		return nil, nil, fmt.Errorf("knowledge: the %s store keeps no term index", cfg.Store.Backend)
	}
	return x, closeStore, nil
}

// millis parses a time flag: RFC 3339 or milliseconds since the epoch.
func millis(name, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	var n int64
	if _, err := fmt.Sscan(v, &n); err == nil && fmt.Sprint(n) == v {
		return n, nil
	}
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return 0, fmt.Errorf("-%s: %q is neither RFC 3339 nor milliseconds since the epoch", name, v)
	}
	return t.UnixMilli(), nil
}

func day(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }

func printSearch(out io.Writer, r *knowledge.SearchResult) {
	fmt.Fprintf(out, "expression: %s\n", r.Expression)
	sources := func(srcs []knowledge.Source, n int) {
		for _, s := range srcs {
			fmt.Fprintf(out, "      %s  %-12s %s\n", day(s.CreatedAt), s.RoomID, s.Snippet)
		}
		if n > len(srcs) {
			fmt.Fprintf(out, "      ... %d more\n", n-len(srcs))
		}
	}
	if len(r.Entities) > 0 {
		fmt.Fprintln(out, "\nentities:")
		for _, e := range r.Entities {
			fmt.Fprintf(out, "  %-24s %-28s score %.2f, %d memories\n", e.Name, "("+strings.Join(e.Types, ", ")+")", e.Score, e.SourceCount)
			sources(e.Sources, e.SourceCount)
		}
	}
	if len(r.Topics) > 0 {
		fmt.Fprintln(out, "\ntopics:")
		for _, t := range r.Topics {
			fmt.Fprintf(out, "  %-53s score %.2f, %d memories\n", t.Topic, t.Score, t.SourceCount)
			sources(t.Sources, t.SourceCount)
		}
	}
	if len(r.Actions) > 0 {
		fmt.Fprintln(out, "\nactions:")
		for _, a := range r.Actions {
			s := strings.Join(strings.Fields(strings.Join([]string{a.Subject, strings.Join(a.Verbs, " "), a.Object, a.IndirectObject}, " ")), " ")
			if a.Negated {
				s = "not: " + s
			}
			if a.Tense != "" {
				s += " (" + a.Tense + ")"
			}
			fmt.Fprintf(out, "  %-53s score %.2f, %d memories\n", s, a.Score, a.SourceCount)
			sources(a.Sources, a.SourceCount)
		}
	}
	fmt.Fprintf(out, "\nmemories (%d):\n", len(r.Memories))
	for _, m := range r.Memories {
		who := m.Memory.EntityID
		if who != "" {
			who += ": "
		}
		fmt.Fprintf(out, "  %6.2f  %s  %-12s %s%s\n", m.Score, day(m.Memory.CreatedAt), m.Memory.RoomID, who,
			knowledge.Snippet(m.Memory.Content.Text, memory.TextRange{}))
	}
}

func printItems(out io.Writer, p memory.KnowledgePage) {
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPES\tMEMORIES\tREFS\tFIRST\tLAST")
	for _, it := range p.Items {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", it.Name, strings.Join(it.Types, ","), it.Memories, it.Refs, day(it.FirstAt), day(it.LastAt))
	}
	tw.Flush()
	if p.Next != "" {
		fmt.Fprintf(out, "next page: -cursor %s\n", p.Next)
	}
}
