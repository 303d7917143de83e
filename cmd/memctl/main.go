// Command memctl is the operator's CLI. It reads the same environment as
// the server (see the README).
//
//	memctl reindex   rebuild the OpenSearch index from the store into a new
//	                 index version and swap the alias (INDEX=opensearch)
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
)

const usage = `usage: memctl <command>

commands:
  reindex   rebuild the OpenSearch index from the store into a new version and
            swap the alias (needs INDEX=opensearch and OPENSEARCH_URL)`

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var err error
	switch os.Args[1] {
	case "reindex":
		err = reindex(ctx)
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
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	if cfg.Index != "opensearch" {
		return fmt.Errorf("reindex needs INDEX=opensearch (the embedded index rebuilds itself at start when needed)")
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	b, err := backend.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.Close()
	st, err := b.OpenSearch.Reindex(ctx, b.Store, b.Embedder)
	if err != nil {
		return err
	}
	fmt.Printf("reindexed %d memories (%d re-embedded) into %s in %v; %d written meanwhile caught up; removed %v\n",
		st.Indexed, st.Reembedded, st.NewIndex, st.Took.Round(1e6), st.CaughtUp, st.OldIndices)
	return nil
}
