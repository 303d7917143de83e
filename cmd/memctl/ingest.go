package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/client"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/spf13/cobra"
)

// ingestStats is what an ingest did, for its summary.
type ingestStats struct {
	indexed, failed, fragments, bytes int
	failures                          []string
}

func ingestCmd(g *globals) *cobra.Command {
	var org, agent string
	cmd := &cobra.Command{
		Use:   "ingest [--agent AGENT] DIR",
		Short: "ingest every supported file under DIR as documents, with a progress bar and a summary",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			root := args[0]
			files, err := walk(root)
			if err != nil {
				return err
			}
			c, err := g.server(ctx)
			if err != nil && !errors.Is(err, errNoServer) {
				return err
			}
			var st ingestStats
			var model string
			start := time.Now()
			if c != nil {
				st, err = ingestRemote(ctx, c, agent, root, files, start)
			} else {
				if err := offline(cmd, org); err != nil {
					return err
				}
				err = withBackend(ctx, func(b *server.Backend) error {
					model = b.Embedder.Model()
					st, err = ingestLocal(ctx, b, org, agent, root, files, start)
					return err
				})
			}
			if err != nil {
				return err
			}
			summary(cmd.OutOrStdout(), st, len(files), time.Since(start), model)
			return nil
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "without a server: the org the documents belong to (with one, the key's org)")
	cmd.Flags().StringVar(&agent, "agent", "", "put the documents in this agent's scope")
	return cmd
}

// walk lists the files under root.
func walk(root string) ([]string, error) {
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
	return files, err
}

// ingestLocal ingests files through the ingestion pipeline of b, named by
// their paths relative to root (the keys ingest.Key makes of them).
func ingestLocal(ctx context.Context, b *server.Backend, org, agent, root string, files []string, start time.Time) (ingestStats, error) {
	var st ingestStats
	c := memory.Caller{OrgID: org, AgentID: agent}
	for i, p := range files {
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return st, err
		}
		st.bytes += len(data)
		ds, err := b.Documents.Submit(ctx, c, filepath.ToSlash(rel), data)
		switch code := memory.ErrorCode(err); {
		case err == nil:
			st.indexed++
			st.fragments += ds.Fragments
		case code == memory.EINVALID || code == memory.ETOOLARGE:
			st.failed++
			st.failures = append(st.failures, fmt.Sprintf("  %s: %s", rel, ds.Reason))
		default:
			fmt.Fprintln(os.Stderr)
			return st, fmt.Errorf("%s: %w", rel, err)
		}
		progress(i+1, len(files), st.fragments, time.Since(start))
	}
	fmt.Fprintln(os.Stderr)
	return st, nil
}

// ingestRemote uploads files to the server (POST /v1/documents, named by
// their path under root) and waits for each to be indexed.
func ingestRemote(ctx context.Context, c *client.Client, agent, root string, files []string, start time.Time) (ingestStats, error) {
	var st ingestStats
	for i, p := range files {
		rel, _ := filepath.Rel(root, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return st, err
		}
		st.bytes += len(data)
		up := client.DocumentUpload{Name: filepath.ToSlash(rel), AgentID: agent}
		if utf8.Valid(data) {
			up.Content = string(data)
		} else {
			up.Data = data
		}
		d, err := c.UploadDocument(ctx, up)
		for err == nil && d.State == "pending" {
			select {
			case <-ctx.Done():
				return st, ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
			d, err = c.Document(ctx, d.ID)
		}
		switch code := client.ErrorCode(err); {
		case err == nil && d.State != "failed":
			st.indexed++
			st.fragments += d.Fragments
		case err == nil:
			st.failed++
			st.failures = append(st.failures, fmt.Sprintf("  %s: %s", rel, d.Reason))
		case code == client.CodeInvalid || code == client.CodeTooLarge:
			st.failed++
			st.failures = append(st.failures, fmt.Sprintf("  %s: %v", rel, err))
		default:
			fmt.Fprintln(os.Stderr)
			return st, fmt.Errorf("%s: %w", rel, err)
		}
		progress(i+1, len(files), st.fragments, time.Since(start))
	}
	fmt.Fprintln(os.Stderr)
	return st, nil
}

// summary prints an ingest's totals and failures.
func summary(w io.Writer, st ingestStats, files int, took time.Duration, model string) {
	fmt.Fprintf(w, "files %d: %d indexed, %d failed; %d fragments; %.1f MB in %v\n", files, st.indexed, st.failed, st.fragments,
		float64(st.bytes)/1e6, took.Round(time.Millisecond))
	fmt.Fprintf(w, "throughput: %.1f files/s, %.1f fragments/s", float64(files)/took.Seconds(), float64(st.fragments)/took.Seconds())
	if model != "" {
		fmt.Fprintf(w, " (embedder %s)", model)
	}
	fmt.Fprintln(w)
	if len(st.failures) > 0 {
		fmt.Fprintln(w, "failed:\n"+strings.Join(st.failures, "\n"))
	}
}

// progress draws a one-line progress bar on standard error.
func progress(done, total, fragments int, elapsed time.Duration) {
	const width = 30
	filled := width * done / max(total, 1)
	fmt.Fprintf(os.Stderr, "\r[%s%s] %d/%d files, %d fragments, %v ", strings.Repeat("=", filled),
		strings.Repeat(" ", width-filled), done, total, fragments, elapsed.Round(time.Second))
}
