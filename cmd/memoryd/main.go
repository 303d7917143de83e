// Command memoryd is the local memory server: the HTTP API on the embedded
// backend, configured from the environment (see the README). Everything
// it runs is composed in wiring/server (Serve).
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

func main() {
	cfg, err := config.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, "memoryd:", err)
		os.Exit(1)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := server.Serve(ctx, cfg, log); err != nil {
		fmt.Fprintln(os.Stderr, "memoryd:", err)
		stop()
		os.Exit(1)
	}
}
