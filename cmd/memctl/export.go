package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/client"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/spf13/cobra"
)

// transferCommands are ingest, export and import: over HTTP to the
// running server (the key's org), or, when none runs, on the data the
// environment names (the org of --org).
func transferCommands(g *globals) []*cobra.Command {
	return []*cobra.Command{ingestCmd(g), exportCmd(g), importCmd(g)}
}

// offline says what a command does without a server: the org is needed.
func offline(cmd *cobra.Command, org string) error {
	if org == "" {
		return fmt.Errorf("%s: no server is running: give --org to open the data directory", cmd.Name())
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "memctl: no server is running: opening the data directory for org %s\n", org)
	return nil
}

func exportCmd(g *globals) *cobra.Command {
	var org, agent, scope string
	var embeddings bool
	cmd := &cobra.Command{
		Use:   "export [--scope AGENT|_org] [--embeddings] > FILE",
		Short: "an org (or one scope) as NDJSON on stdout, as GET /v1/export",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			c, err := g.server(ctx)
			if err == nil {
				return exportRemote(ctx, c, client.ExportOptions{AgentID: scope, Embeddings: embeddings}, cmd.OutOrStdout())
			}
			if !errors.Is(err, errNoServer) {
				return err
			}
			if err := offline(cmd, org); err != nil {
				return err
			}
			return withBackend(ctx, func(b *server.Backend) error {
				return exportTo(ctx, b.Service, memory.Caller{OrgID: org, AgentID: agent},
					service.ExportOptions{AgentID: scope, Embeddings: embeddings}, cmd.OutOrStdout())
			})
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "without a server: the org to export (with one, the key's org)")
	cmd.Flags().StringVar(&agent, "agent", "", "without a server: act as a key bound to this agent")
	cmd.Flags().StringVar(&scope, "scope", "", "one agent's scope, or _org for the org scope only")
	cmd.Flags().BoolVar(&embeddings, "embeddings", false, "add the embeddings")
	return cmd
}

func importCmd(g *globals) *cobra.Command {
	var org, agent string
	cmd := &cobra.Command{
		Use:   "import [FILE]",
		Short: "read an export back (stdin without FILE), idempotently, as POST /v1/import; prints the report",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			in := cmd.InOrStdin()
			if len(args) == 1 {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			c, err := g.server(ctx)
			if err == nil {
				rep, err := c.Import(ctx, in)
				if err != nil {
					return err
				}
				return printJSON(cmd.OutOrStdout(), rep)
			}
			if !errors.Is(err, errNoServer) {
				return err
			}
			if err := offline(cmd, org); err != nil {
				return err
			}
			return withBackend(ctx, func(b *server.Backend) error {
				rep, err := importFrom(ctx, b.Service, memory.Caller{OrgID: org, AgentID: agent}, in)
				if err != nil {
					return err
				}
				return printJSON(cmd.OutOrStdout(), rep)
			})
		},
	}
	cmd.Flags().StringVar(&org, "org", "", "without a server: the org to import into (with one, the key's org)")
	cmd.Flags().StringVar(&agent, "agent", "", "without a server: act as a key bound to this agent")
	return cmd
}

// withBackend opens the backend the environment names, for a command run
// without a server, and closes it after fn.
func withBackend(ctx context.Context, fn func(b *server.Backend) error) error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	b, err := server.Open(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer b.Close()
	return fn(b)
}

// exportRemote writes the server's export to w.
func exportRemote(ctx context.Context, c *client.Client, o client.ExportOptions, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for line, err := range c.Export(ctx, o) {
		if err != nil {
			return err
		}
		bw.Write(line)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// exportTo writes c's export as NDJSON to w.
func exportTo(ctx context.Context, svc *service.Service, c memory.Caller, opts service.ExportOptions, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	if err := svc.Export(ctx, c, opts, func(l service.ExportLine) error { return enc.Encode(l) }); err != nil {
		return err
	}
	return bw.Flush()
}

// importFrom reads an export from r into c's org.
func importFrom(ctx context.Context, svc *service.Service, c memory.Caller, r io.Reader) (service.ImportReport, error) {
	im, err := svc.NewImporter(c)
	if err != nil {
		return service.ImportReport{}, err
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		if err := im.Add(ctx, n, sc.Bytes()); err != nil {
			return service.ImportReport{}, err
		}
	}
	if err := sc.Err(); err != nil {
		return service.ImportReport{}, err
	}
	return im.Finish(ctx)
}
