// Command bench-load is the load and soak tool: N clients for T seconds
// against a memory server, with one or several orgs' keys, then a
// consistency check of everything they were told.
//
// Each client works in its own room and mixes creates, duplicate races
// (the same externalId from several connections at once, and the same
// Idempotency-Key on /v1/messages), conditional patches (If-Match, and
// races of two patches on one version), deletes and searches. Afterwards
// it checks, with each memory's own key:
//
//   - nothing accepted was lost: every memory created (2xx) and not
//     deleted is read back, and every deleted one is gone;
//   - no duplicate copies: a duplicate race answers one id, and the room
//     lists each externalId once;
//   - no lost update: a memory holds the content and version of its last
//     successful patch, and of two patches on one version at most one won;
//   - store and search agree: each surviving memory is listed in its room
//     and found by a keyword search for its unique token;
//   - isolation: with several keys (one per org), no memory is readable
//     with another org's key.
//
// It prints a Markdown table (throughput, p50/p95/p99 by operation,
// statuses) and the violations, or JSON with -json; it exits 1 on a
// consistency violation or an unexpected error (a 5xx, a refused
// connection, a 4xx other than the expected 409, 412 and 429).
//
// With -memoryd it starts that memoryd binary itself on a loopback port,
// with a temporary data directory, the hashing embedder (unless MODEL_DIR
// is set) and one key per org (-orgs), and stops it at the end: make
// bench-load does this.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"
)

func main() {
	err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench-load:", err)
		os.Exit(1)
	}
}

// options are the flags.
type options struct {
	url      string
	keys     []string
	clients  int
	duration time.Duration
	jsonOut  string
	memoryd  string
	orgs     int
	seed     int64
}

func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("bench-load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	keys := fs.String("keys", os.Getenv("BENCH_KEYS"), "comma-separated API keys, one per org (BENCH_KEYS); clients take them in turn")
	fs.StringVar(&o.url, "url", "http://127.0.0.1:8080", "the server's base URL")
	fs.IntVar(&o.clients, "clients", 50, "concurrent clients")
	fs.DurationVar(&o.duration, "duration", 60*time.Second, "how long the clients run")
	fs.StringVar(&o.jsonOut, "json", "", "write the report as JSON to this file (- for standard output) instead of the table")
	fs.StringVar(&o.memoryd, "memoryd", "", "start this memoryd binary on a loopback port with a temporary data directory (ignores -url and -keys)")
	fs.IntVar(&o.orgs, "orgs", 3, "with -memoryd: how many orgs (one key each)")
	fs.Int64Var(&o.seed, "seed", time.Now().UnixNano(), "random seed of the operation mix")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	for _, k := range strings.Split(*keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			o.keys = append(o.keys, k)
		}
	}
	switch {
	case o.clients < 1:
		return o, fmt.Errorf("-clients: must be at least 1")
	case o.duration <= 0:
		return o, fmt.Errorf("-duration: must be positive")
	case o.memoryd == "" && len(o.keys) == 0:
		return o, fmt.Errorf("-keys: give at least one API key (or -memoryd to start a server)")
	case o.memoryd != "" && (o.orgs < 1 || o.orgs > 100):
		return o, fmt.Errorf("-orgs: must be between 1 and 100")
	}
	return o, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parse(args, stderr)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	if o.memoryd != "" {
		d, err := startMemoryd(ctx, o.memoryd, o.orgs, stderr)
		if err != nil {
			return err
		}
		defer d.stop()
		o.url, o.keys = d.url, d.keys
	}
	fmt.Fprintf(stderr, "bench-load: %d clients for %v against %s with %d key(s)\n", o.clients, o.duration, o.url, len(o.keys))
	rep, err := newLoad(o).run(ctx)
	if err != nil {
		return err
	}
	if o.jsonOut != "" {
		w := stdout
		if o.jsonOut != "-" {
			f, err := os.Create(o.jsonOut)
			if err != nil {
				return err
			}
			defer f.Close()
			w = f
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	}
	if o.jsonOut != "-" {
		rep.markdown(stdout)
	}
	if n := len(rep.Violations); n > 0 {
		return fmt.Errorf("%d consistency violation(s)", rep.ViolationCount)
	}
	if rep.UnexpectedErrors > 0 {
		return fmt.Errorf("%d unexpected error(s)", rep.UnexpectedErrors)
	}
	return nil
}
