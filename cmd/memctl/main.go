// Command memctl is the operator's CLI. It reads the same environment as
// the server (see the README).
//
//	memctl reindex   rebuild the OpenSearch index from the store into a new
//	                 index version and swap the alias (INDEX=opensearch)
//	memctl knowledge explore an org's Structured RAG knowledge: search,
//	                 entities, topics, terms
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

const usage = `usage: memctl <command> [flags]

commands:
  reindex      rebuild the OpenSearch index from the store into a new version and
               swap the alias (needs INDEX=opensearch and OPENSEARCH_URL)
  keys         create|list|revoke: API keys with grants, in the store the
               environment names; a new key's secret is printed once
               (create-key is keys create)
  quota        -org ORG [-memories N] [-bytes N] [-documents N]: show an org's
               usage and limits, or set its own limits
  ingest       -org ORG [-agent AGENT] DIR: ingest every supported file under DIR
               (keys ORG/AGENT-or-_org/relative/path), with a progress bar and a summary
  knowledge    search|entities|topics|terms -org ORG [flags]: explore an org's knowledge
               (memctl knowledge for the flags)
  mcp          [-url URL] [-key KEY]: serve MCP over stdio for desktop clients, as a
               proxy onto a running server's /mcp (env AGENTMEM_URL, AGENTMEM_API_KEY;
               default the local server and the development key of DATA_DIR)
  export       -org ORG [-agent A] [-scope S] [-embeddings]: an org (or one scope) as
               NDJSON on stdout, as GET /v1/export
  import       -org ORG [-agent A] [FILE]: read an export back (stdin without FILE),
               idempotently, as POST /v1/import; prints the report
  status       [-url URL]: a running server's health: degraded or not, and the
               progress of a re-embedding after a model change (default URL
               http://127.0.0.1:PORT)`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "reindex":
		err = reindex(ctx)
	case "keys":
		err = keysCmd(ctx, os.Args[2:])
	case "create-key":
		err = keysCmd(ctx, append([]string{"create"}, os.Args[2:]...))
	case "quota":
		err = quotaCmd(ctx, os.Args[2:])
	case "ingest":
		err = ingestDir(ctx, os.Args[2:])
	case "knowledge":
		err = knowledgeCmd(ctx, os.Args[2:], os.Stdout)
	case "status":
		err = status(ctx, os.Args[2:])
	case "mcp":
		err = mcpCmd(ctx, os.Args[2:])
	case "export", "import":
		err = transferCmd(ctx, os.Args[1], os.Args[2:])
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memctl:", err)
		os.Exit(1)
	}
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
