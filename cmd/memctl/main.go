// Command memctl is agentmem's command line, for people and operators.
//
// For people (over HTTP, to the server AGENTMEM_URL names with the key
// AGENTMEM_API_KEY; default the local server and the development key of
// DATA_DIR): add, search, context, get, forget. ingest, export and import
// go through a running server too, and open the data directory themselves
// only when none is running. The operator's commands (keys, quota,
// reindex, knowledge, status, mcp) read the environment as the server does
// (see the README). `memctl completion` prints a shell completion script;
// `--json` prints the API's JSON for scripts.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	root := newRoot()
	root.SetArgs(longFlags(os.Args[1:]))
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "memctl:", err)
		stop()
		os.Exit(1)
	}
}
