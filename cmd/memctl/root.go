package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/spf13/cobra"
)

// Why cobra: it is the most used and best kept Go CLI library (kubectl,
// gh, hugo), with nested commands, generated help, and shell completion
// for bash, zsh, fish and PowerShell (`memctl completion`) built in.

// newRoot builds memctl's command tree.
func newRoot() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:   "memctl",
		Short: "agentmem's command line: remember, search and move memories; operate the server",
		Long: `memctl talks HTTP to a running agentmem server: AGENTMEM_URL (default
http://127.0.0.1:$PORT) with the key AGENTMEM_API_KEY (default the development
key of DATA_DIR). ingest, export and import open the data directory themselves
only when no server is running. --json prints the API's JSON, for scripts.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.url, "url", "", "the server's base URL (env AGENTMEM_URL; default http://127.0.0.1:$PORT)")
	root.PersistentFlags().StringVar(&g.key, "key", "", "the API key (env AGENTMEM_API_KEY; default the development key of DATA_DIR)")
	root.PersistentFlags().BoolVar(&g.json, "json", false, "print JSON instead of text")
	root.AddGroup(&cobra.Group{ID: "people", Title: "Memories (over HTTP):"},
		&cobra.Group{ID: "transfer", Title: "Moving data (over HTTP, or the data directory when no server runs):"},
		&cobra.Group{ID: "ops", Title: "Operators:"})
	for _, c := range peopleCommands(g) {
		c.GroupID = "people"
		root.AddCommand(c)
	}
	for _, c := range transferCommands(g) {
		c.GroupID = "transfer"
		root.AddCommand(c)
	}
	for _, c := range operatorCommands() {
		c.GroupID = "ops"
		root.AddCommand(c)
	}
	return root
}

// operatorCommands are the operator's commands, which parse their own
// flags (their usage is printed by each; `memctl keys` for instance).
func operatorCommands() []*cobra.Command {
	type op struct {
		use, short, long string
		run              func(ctx context.Context, args []string) error
	}
	ops := []op{
		{"keys create|list|revoke", "API keys with grants, in the store the environment names", keysUsage, keysCmd},
		{"create-key", "the same as keys create", keysUsage, func(ctx context.Context, args []string) error {
			return keysCmd(ctx, append([]string{"create"}, args...))
		}},
		{"quota -org ORG [-memories N] [-bytes N] [-documents N]", "an org's usage and limits, or set its own limits", keysUsage, quotaCmd},
		{"reindex", "rebuild the OpenSearch index into a new version and swap the alias (INDEX=opensearch)", "",
			func(ctx context.Context, _ []string) error { return reindex(ctx) }},
		{"knowledge search|entities|topics|terms -org ORG", "explore an org's knowledge", knowledgeUsage,
			func(ctx context.Context, args []string) error { return knowledgeCmd(ctx, args, os.Stdout) }},
		{"status [-url URL]", "a running server's health and re-embedding progress", "", status},
		{"repage", "rewrite DATA_DIR's database at 16 KiB pages, as a new one has (stop the server first; needs free disk twice the file's size)", repageUsage,
			func(ctx context.Context, args []string) error { return repage(ctx, args, os.Stdout) }},
		{"mcp [-url URL] [-key KEY]", "serve MCP over stdio, as a proxy onto a running server's /mcp (env AGENTMEM_URL, AGENTMEM_API_KEY)", "", mcpCmd},
	}
	cmds := make([]*cobra.Command, 0, len(ops))
	for _, o := range ops {
		run := o.run
		cmds = append(cmds, &cobra.Command{
			Use: o.use, Short: o.short, Long: o.long, DisableFlagParsing: true,
			RunE: func(cmd *cobra.Command, args []string) error {
				for _, a := range args {
					if a == "--help" || a == "-h" {
						return cmd.Help()
					}
				}
				return run(cmd.Context(), args)
			},
		})
	}
	return cmds
}

// singleDash matches a flag written with one dash and a long name
// (-org), as memctl's commands took them before.
var singleDash = regexp.MustCompile(`^-[a-zA-Z][a-zA-Z-]+(=.*)?$`)

// longFlags rewrites -name flags as --name, so that the commands and
// scripts written for memctl's former flags keep working; arguments after
// "--" are left as they are.
func longFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if singleDash.MatchString(a) {
			a = "-" + a
		}
		out[i] = a
	}
	return out
}

func reindex(ctx context.Context) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.Index.Kind != "opensearch" {
		return fmt.Errorf("reindex needs INDEX=opensearch (the embedded index rebuilds itself at start when needed)")
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	b, err := server.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.Close()
	st, err := b.OpenSearch.Reindex(ctx, service.Rebuilder{Store: b.Store, Embedder: b.Embedder, Sentences: cfg.Embedder.Sentences})
	if err != nil {
		return err
	}
	fmt.Printf("reindexed %d memories (%d re-embedded) into %s in %v; %d written meanwhile caught up; removed %v\n",
		st.Indexed, st.Reembedded, st.NewIndex, st.Took.Round(1e6), st.CaughtUp, st.OldIndices)
	return nil
}

const repageUsage = `memctl repage rewrites the embedded store's database (DATA_DIR/memories.db)
with 16 KiB pages, the page size of a database this version creates. A
database made by an earlier version has 4 KiB pages, on which each memory's
row spills onto an overflow page; at a million memories the rewrite takes
the file from about 12.8 to 10.0 GB. Stop the server first: the command
refuses a database another process has open. It rewrites the file in
place (VACUUM, crash-safe), and needs free disk for about twice the file:
a temporary copy in SQLITE_TMPDIR or TMPDIR (else /var/tmp or /tmp), and
the journal beside the database.`

// repage rewrites DATA_DIR's SQLite database at the page size of a new
// one (local.RepageStore), and says what it did on w. It takes no
// arguments: the database is DATA_DIR's.
func repage(ctx context.Context, args []string, w io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("repage takes no arguments (got %q): it rewrites DATA_DIR's %s", args, local.StoreFile)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.Store.Backend != config.BackendEmbedded {
		return fmt.Errorf("repage is for the embedded store (BACKEND=%s)", cfg.Store.Backend)
	}
	began := time.Now()
	res, err := local.RepageStore(ctx, cfg.DataDir)
	if err != nil {
		return err
	}
	if res.PageBefore == res.PageAfter {
		_, err = fmt.Fprintf(w, "%s already has pages of %d bytes: nothing to do\n", local.StoreFile, res.PageAfter)
		return err
	}
	_, err = fmt.Fprintf(w, "rewrote %s: pages of %d → %d bytes, %d → %d MB, in %v\n", local.StoreFile,
		res.PageBefore, res.PageAfter, res.BytesBefore>>20, res.BytesAfter>>20, time.Since(began).Round(time.Millisecond))
	return err
}
