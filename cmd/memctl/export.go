package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// transferCmd runs memctl export or import against the backend the
// environment names (no server needed), with the API's use cases: the
// same lines as GET /v1/export, the same idempotent import as POST
// /v1/import.
func transferCmd(ctx context.Context, name string, args []string) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	org := fs.String("org", "", "the org to export, or to import into")
	agent := fs.String("agent", "", "act as a key bound to this agent (its scope only)")
	scope := fs.String("scope", "", "export: one agent's scope, or _org for the org scope only")
	embeddings := fs.Bool("embeddings", false, "export: add the embeddings")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *org == "" || (name == "import" && fs.NArg() > 1) || (name == "export" && fs.NArg() > 0) {
		return fmt.Errorf("usage: memctl export -org ORG [-agent A] [-scope S] [-embeddings] > FILE, memctl import -org ORG [-agent A] [FILE]")
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
	c := memory.Caller{OrgID: *org, AgentID: *agent}
	if name == "export" {
		return exportTo(ctx, b.Service, c, service.ExportOptions{AgentID: *scope, Embeddings: *embeddings}, os.Stdout)
	}
	in := io.Reader(os.Stdin)
	if fs.NArg() == 1 {
		f, err := os.Open(fs.Arg(0))
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	rep, err := importFrom(ctx, b.Service, c, in)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
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
