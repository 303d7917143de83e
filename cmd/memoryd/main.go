// Command memoryd is the local memory server: the HTTP API on the embedded
// backend, configured from the environment (see the README).
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/agentmem/agentmem/auth"
	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pipeline/consolidate"
	"github.com/agentmem/agentmem/pipeline/extract"
	"github.com/agentmem/agentmem/transport/httpapi"
	"github.com/agentmem/agentmem/wiring/server"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "memoryd:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	b, err := server.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := b.Recover(ctx); err != nil {
		return err
	}
	keys, err := loadKeys(cfg, b, log)
	if err != nil {
		return err
	}
	queue := extract.NewLocalQueue(b.Facts, 1000)
	defer queue.Close()
	if cfg.Consolidation.Every > 0 {
		go consolidateEvery(ctx, b.Consolidation, cfg.Consolidation.Every, log)
	}

	srv := &http.Server{
		Addr: net.JoinHostPort(cfg.Server.Addr, strconv.Itoa(cfg.Server.Port)),
		Handler: httpapi.New(b.Service, keys, log, httpapi.WithDocuments(b.Documents), httpapi.WithExtraction(queue),
			httpapi.WithConsolidation(b.Consolidation), httpapi.WithHealth(b)),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "backend", cfg.Store.Backend,
		"index", cfg.Index.Kind, "embedder", b.Embedder.Model())
	fmt.Fprintf(os.Stderr, "memoryd listening on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// loadKeys picks the authenticator: API_KEYS when set; else the keys kept
// in DynamoDB (BACKEND=aws, created with memctl create-key); else the
// development key of the data directory, printed at start.
func loadKeys(cfg config.Config, b *server.Backend, log *slog.Logger) (auth.Authenticator, error) {
	if cfg.Server.APIKeys != "" {
		return auth.ParseKeys(cfg.Server.APIKeys)
	}
	if b.DynamoDB != nil {
		log.Info("API keys are read from DynamoDB (memctl create-key)", "table", cfg.Store.DynamoDBTable)
		return b.DynamoDB, nil
	}
	key, err := auth.DevKey(cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("dev key: %w", err)
	}
	log.Warn("API_KEYS is not set: using the development key of the data directory", "org", auth.DevOrg)
	fmt.Fprintf(os.Stderr, "development API key (org %q): %s\n", auth.DevOrg, key)
	return auth.ParseKeys(key + "=" + auth.DevOrg)
}

// consolidateEvery runs consolidation for every org at each interval until
// ctx ends.
func consolidateEvery(ctx context.Context, job *consolidate.Job, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := job.RunAll(ctx); err != nil {
				log.Error("scheduled consolidation", "err", err)
			}
		}
	}
}
