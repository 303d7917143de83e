package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/client"
	"github.com/spf13/cobra"
)

// scopeFlags are the flags that say whose memories a command reads or
// writes: they become the API's filter (and, for a read, whom it serves).
type scopeFlags struct {
	agent, room, world, user, session, entity string
}

func (s *scopeFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.agent, "agent", "", "an agent's scope (an org-level key), or _org for the org scope")
	f.StringVar(&s.room, "room", "", "a room (conversation)")
	f.StringVar(&s.world, "world", "", "a world (a server or workspace of rooms)")
	f.StringVar(&s.user, "user", "", "an end user (an entity id)")
	f.StringVar(&s.session, "session", "", "a session")
	f.StringVar(&s.entity, "entity", "", "an entity id")
}

func (s *scopeFlags) filter() *client.Filter {
	if *s == (scopeFlags{}) {
		return nil
	}
	return &client.Filter{AgentID: s.agent, RoomID: s.room, WorldID: s.world, UserID: s.user, SessionID: s.session, EntityID: s.entity}
}

// peopleCommands are add, search, context, get and forget: the API's
// everyday calls, over HTTP.
func peopleCommands(g *globals) []*cobra.Command {
	return []*cobra.Command{addCmd(g), searchCmd(g), contextCmd(g), getCmd(g), forgetCmd(g)}
}

func addCmd(g *globals) *cobra.Command {
	var sc scopeFlags
	var typ, kind, metadata, visibility string
	cmd := &cobra.Command{
		Use:     "add TEXT...",
		Short:   "remember a text (POST /v1/memories)",
		Example: `  memctl add "Dana prefers jasmine tea" --type fact --user dana`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.mustServer(cmd.Context())
			if err != nil {
				return err
			}
			m := client.NewMemory{Type: typ, Kind: kind, Visibility: visibility, Content: client.Content{Text: strings.Join(args, " ")},
				AgentID: sc.agent, RoomID: sc.room, WorldID: sc.world, UserID: sc.user, SessionID: sc.session, EntityID: sc.entity}
			if metadata != "" {
				if !json.Valid([]byte(metadata)) {
					return fmt.Errorf("add: --metadata: not JSON")
				}
				m.Metadata = json.RawMessage(metadata)
			}
			res, err := c.Create(cmd.Context(), m)
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			if res.Duplicate {
				fmt.Fprintf(cmd.OutOrStdout(), "%s (already stored)\n", res.ID)
				return nil
			}
			fmt.Fprintln(cmd.OutOrStdout(), res.ID)
			return nil
		},
	}
	sc.register(cmd)
	cmd.Flags().StringVar(&typ, "type", "fact", "message, fact, document, description or custom")
	cmd.Flags().StringVar(&kind, "kind", "", "a fact's kind: fact, preference, interaction, summary, ...")
	cmd.Flags().StringVar(&visibility, "visibility", "", "shared, world, room, user or agent")
	cmd.Flags().StringVar(&metadata, "metadata", "", "a JSON object")
	return cmd
}

func searchCmd(g *globals) *cobra.Command {
	var sc scopeFlags
	var k int
	var mode string
	cmd := &cobra.Command{
		Use:     "search QUERY...",
		Short:   "search memories (POST /v1/search): numbered lines with ids, type, date and text",
		Example: `  memctl search what does Dana drink --user dana -k 5`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.mustServer(cmd.Context())
			if err != nil {
				return err
			}
			res, err := c.Search(cmd.Context(), client.SearchRequest{Query: strings.Join(args, " "), K: k, Mode: mode, Filters: sc.filter()})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			ms := make([]*client.Memory, len(res.Results))
			for i, r := range res.Results {
				ms[i] = r.Memory
			}
			writeMemories(cmd.OutOrStdout(), ms)
			return nil
		},
	}
	sc.register(cmd)
	cmd.Flags().IntVarP(&k, "k", "k", 10, "how many results")
	cmd.Flags().StringVar(&mode, "mode", "", "full (default), hybrid, keyword, semantic or knowledge")
	return cmd
}

func contextCmd(g *globals) *cobra.Command {
	var room, user, world string
	var budget int
	cmd := &cobra.Command{
		Use:     "context QUERY...",
		Short:   "the prompt context for a question, within a token budget (POST /v1/context)",
		Example: `  memctl context what should I know about Dana --user dana --budget 800`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.mustServer(cmd.Context())
			if err != nil {
				return err
			}
			res, err := c.Context(cmd.Context(), client.ContextRequest{Query: strings.Join(args, " "), RoomID: room, UserID: user,
				WorldID: world, BudgetTokens: budget})
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), res)
			}
			fmt.Fprintln(cmd.OutOrStdout(), strings.TrimRight(res.Context, "\n"))
			return nil
		},
	}
	cmd.Flags().StringVar(&room, "room", "", "the conversation served")
	cmd.Flags().StringVar(&user, "user", "", "the end user served")
	cmd.Flags().StringVar(&world, "world", "", "the world served")
	cmd.Flags().IntVar(&budget, "budget", 0, "the token budget (default the server's)")
	return cmd
}

func getCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "get ID",
		Short: "one memory (GET /v1/memories/{id})",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := g.mustServer(cmd.Context())
			if err != nil {
				return err
			}
			m, err := c.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), m)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "id:       %s\ntype:     %s\ncreated:  %s\n", m.ID, typeOf(m), time.UnixMilli(m.CreatedAt).UTC().Format(time.RFC3339))
			for _, kv := range [][2]string{{"agent", m.AgentID}, {"room", m.RoomID}, {"world", m.WorldID}, {"entity", m.EntityID},
				{"session", m.SessionID}} {
				if kv[1] != "" {
					fmt.Fprintf(w, "%-9s %s\n", kv[0]+":", kv[1])
				}
			}
			if len(m.Metadata) > 0 && string(m.Metadata) != "null" && string(m.Metadata) != "{}" {
				fmt.Fprintf(w, "metadata: %s\n", m.Metadata)
			}
			fmt.Fprintf(w, "\n%s\n", m.Content.Text)
			return nil
		},
	}
}

func forgetCmd(g *globals) *cobra.Command {
	var req client.ForgetRequest
	var start, end string
	cmd := &cobra.Command{
		Use:   "forget --entity NAME | --session S | --room R | --start T --end T",
		Short: "erase what is known of an entity, a session, a room or a time range (POST /v1/forget)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var err error
			if req.Start, err = parseTime("--start", start); err != nil {
				return err
			}
			if req.End, err = parseTime("--end", end); err != nil {
				return err
			}
			if req == (client.ForgetRequest{AgentID: req.AgentID}) {
				return fmt.Errorf("forget: give at least one of --entity, --session, --room, --start, --end")
			}
			c, err := g.mustServer(cmd.Context())
			if err != nil {
				return err
			}
			rep, err := c.Forget(cmd.Context(), req)
			if err != nil {
				return err
			}
			if g.json {
				return printJSON(cmd.OutOrStdout(), rep)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "forgot %d memories (%d facts drawn from them, %d relations); %d contexts rewritten; audit %s\n",
				rep.Memories, rep.Facts, rep.Relations, rep.ContextsRewritten, rep.AuditID)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&req.Entity, "entity", "", "an entity's name")
	f.StringVar(&req.SessionID, "session", "", "a session")
	f.StringVar(&req.RoomID, "room", "", "a room")
	f.StringVar(&start, "start", "", "created at or after (RFC 3339 or ms since the epoch)")
	f.StringVar(&end, "end", "", "created before (RFC 3339 or ms since the epoch)")
	f.StringVar(&req.AgentID, "agent", "", "narrow an org-level key's erasure to one agent, or _org")
	return cmd
}

// parseTime reads an RFC 3339 time or milliseconds since the epoch.
func parseTime(flag, v string) (int64, error) {
	if v == "" {
		return 0, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UnixMilli(), nil
	}
	var ms int64
	if _, err := fmt.Sscan(v, &ms); err != nil || ms <= 0 {
		return 0, fmt.Errorf("%s: %q is neither RFC 3339 nor milliseconds", flag, v)
	}
	return ms, nil
}

// writeMemories prints ms as numbered lines: id, type, date, text.
func writeMemories(w io.Writer, ms []*client.Memory) {
	if len(ms) == 0 {
		fmt.Fprintln(w, "no memories")
		return
	}
	for i, m := range ms {
		fmt.Fprintf(w, "%d. %s [%s, %s] %s\n", i+1, m.ID, typeOf(m), time.UnixMilli(m.CreatedAt).UTC().Format("2006-01-02"), oneLine(m.Content.Text, 240))
	}
}

func typeOf(m *client.Memory) string {
	if m.Kind != "" && m.Kind != m.Type {
		return m.Type + "/" + m.Kind
	}
	return m.Type
}

// oneLine is s on one line, clipped to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
