// Command memctl is the operator's CLI. It reads the same environment as
// the server (see the README).
//
//	memctl reindex   rebuild the OpenSearch index from the store into a new
//	                 index version and swap the alias (INDEX=opensearch)
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/wiring/aws"
	"github.com/agentmem/agentmem/wiring/server"
)

const usage = `usage: memctl <command> [flags]

commands:
  reindex      rebuild the OpenSearch index from the store into a new version and
               swap the alias (needs INDEX=opensearch and OPENSEARCH_URL)
  create-key   -org ORG [-agent AGENT] [-name NAME]: create an API key in
               DynamoDB (BACKEND=aws) and print it once; only its hash is stored
  ingest       -org ORG [-agent AGENT] DIR: ingest every supported file under DIR
               (keys ORG/AGENT-or-_org/relative/path), with a progress bar and a summary
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
	case "create-key":
		err = createKey(ctx, os.Args[2:])
	case "ingest":
		err = ingestDir(ctx, os.Args[2:])
	case "status":
		err = status(ctx, os.Args[2:])
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
	st, err := b.OpenSearch.Reindex(ctx, b.Store, b.Embedder)
	if err != nil {
		return err
	}
	fmt.Printf("reindexed %d memories (%d re-embedded) into %s in %v; %d written meanwhile caught up; removed %v\n",
		st.Indexed, st.Reembedded, st.NewIndex, st.Took.Round(1e6), st.CaughtUp, st.OldIndices)
	return nil
}

func createKey(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("create-key", flag.ContinueOnError)
	org := fs.String("org", "", "the org (tenant) the key belongs to")
	agent := fs.String("agent", "", "bind the key to one agent of the org")
	name := fs.String("name", "", "a description, e.g. the client using it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *org == "" {
		return fmt.Errorf("create-key: -org is required")
	}
	if !memory.ValidName(*org) || (*agent != "" && !memory.ValidName(*agent)) || *agent == memory.OrgScope {
		return fmt.Errorf("create-key: org and agent names are 1-%d of A-Z a-z 0-9 . _ - (and the agent is not %s)", memory.MaxNameLen, memory.OrgScope)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	if cfg.Store.Backend != "aws" {
		return fmt.Errorf("create-key needs BACKEND=aws (the embedded backend reads API_KEYS)")
	}
	store, err := aws.OpenStore(ctx, cfg.Store, cfg.AWS)
	if err != nil {
		return err
	}
	var raw [24]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return err
	}
	key := "amk_" + hex.EncodeToString(raw[:])
	if err := store.PutAPIKey(ctx, key, memory.Caller{OrgID: *org, AgentID: *agent}, *name); err != nil {
		return err
	}
	fmt.Println(key)
	return nil
}
