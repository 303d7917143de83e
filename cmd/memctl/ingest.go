package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// ingestDir ingests a directory of files through the ingestion pipeline.
func ingestDir(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	org := fs.String("org", "", "the org the documents belong to")
	agent := fs.String("agent", "", "put the documents in this agent's scope")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *org == "" || fs.NArg() != 1 {
		return fmt.Errorf("usage: memctl ingest -org ORG [-agent AGENT] DIR")
	}
	root := fs.Arg(0)
	var files []string
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	b, err := server.Open(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer b.Close()
	seg := memory.OrgScope
	if *agent != "" {
		seg = *agent
	}
	c := memory.Caller{OrgID: *org, AgentID: *agent}
	var indexed, failed, fragments, bytes int
	var failures []string
	start := time.Now()
	for i, p := range files {
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		bytes += len(data)
		st, err := b.Documents.Ingest(ctx, c, *org+"/"+seg+"/"+filepath.ToSlash(rel), data, "")
		switch code := memory.ErrorCode(err); {
		case err == nil:
			indexed++
			fragments += st.Fragments
		case code == memory.EINVALID || code == memory.ETOOLARGE:
			failed++
			failures = append(failures, fmt.Sprintf("  %s: %s", rel, st.Reason))
		default:
			fmt.Fprintln(os.Stderr)
			return fmt.Errorf("%s: %w", rel, err)
		}
		progress(i+1, len(files), fragments, time.Since(start))
	}
	took := time.Since(start)
	fmt.Fprintln(os.Stderr)
	fmt.Printf("files %d: %d indexed, %d failed; %d fragments; %.1f MB in %v\n", len(files), indexed, failed, fragments,
		float64(bytes)/1e6, took.Round(time.Millisecond))
	fmt.Printf("throughput: %.1f files/s, %.1f fragments/s (embedder %s)\n", float64(len(files))/took.Seconds(),
		float64(fragments)/took.Seconds(), b.Embedder.Model())
	if len(failures) > 0 {
		fmt.Println("failed:\n" + strings.Join(failures, "\n"))
	}
	return nil
}

// progress draws a one-line progress bar on standard error.
func progress(done, total, fragments int, elapsed time.Duration) {
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(os.Stderr, "\r[%s%s] %d/%d files, %d fragments, %v ", strings.Repeat("=", filled),
		strings.Repeat(" ", width-filled), done, total, fragments, elapsed.Round(time.Second))
}
