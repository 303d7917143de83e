package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/telemetry/otlp"
	"github.com/agentmem/agentmem/pkg/telemetry/prom"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
)

// Serve runs memoryd until ctx ends: tracing (off unless the OTEL_*
// variables ask for it), the backend of cfg, recovery of interrupted
// ingestion, the keys, the local extraction queue, scheduled
// consolidation, and the HTTP API with /metrics behind the per-key limits,
// shut down gracefully (15 s) when ctx ends.
func Serve(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	// Traces (off unless the OTEL_* variables ask for them) before the
	// backend, whose ports are traced when they are on.
	stopTracing, err := otlp.Setup(ctx, "memoryd")
	if err != nil {
		return err
	}
	defer stopTracing(context.Background())
	metrics := prom.New()

	b, err := Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.Close()
	if _, err := b.Recover(ctx); err != nil {
		return err
	}
	keys, devKey, created, err := Authenticator(cfg, b)
	if err != nil {
		return err
	}
	welcome := Welcome{DevKey: devKey, Created: created, Org: auth.DevOrg}
	if devKey != "" {
		welcome.KeyFile = filepath.Join(cfg.DataDir, auth.DevKeyFile)
		log.Warn("API_KEYS is not set: using the development key of the data directory", "org", auth.DevOrg, "file", welcome.KeyFile)
	}
	b.Facts.Extractor = extraction.Observed(b.Facts.Extractor, metrics)
	// The store's extraction log makes the queue durable: what a killed
	// process had not extracted is queued again here.
	xlog, _ := b.Store.(memory.ExtractionLog)
	queue := extract.NewDurableQueue(b.Facts, cfg.Extraction.LocalQueueCap, xlog)
	defer queue.Close()
	if n, err := queue.Replay(ctx); err != nil {
		return err
	} else if n > 0 {
		log.Info("extraction queued again at start", "op", "extract", "messages", n)
	}
	metrics.WatchQueue(telemetry.Extract, queue.Len)
	if cfg.Consolidation.Every > 0 {
		go consolidateEvery(ctx, b.Consolidation, cfg.Consolidation.Every, metrics, log)
	}
	limiter := Limit(nil, cfg.Limits, log)
	parts := api.Parts{Service: b.Service, Quotas: Quotas(cfg.Quotas, b), MaxKeys: cfg.Quotas.Keys, Knowledge: b.Knowledge,
		Registry: b.Registry, Workstreams: b.Workstreams, Documents: b.Documents, Consolidation: b.Consolidation, Extraction: queue,
		Settings: b.Settings, Keys: b.Keys, Idempotency: b.Idempotency, Tokens: b.Tokens, Metrics: metrics, Health: b,
		Admission: limiter.Admit}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", metrics.Handler()) // no tenant data: route patterns, stages, counts
	mux.Handle("/", limiter.Wrap(api.New(parts, keys, log)))

	srv := HTTPServer(net.JoinHostPort(cfg.Server.Addr, strconv.Itoa(cfg.Server.Port)), mux, cfg.Limits)
	ln, err := net.Listen("tcp", srv.Addr)
	if err != nil {
		return err
	}
	log.Info("listening", "addr", ln.Addr().String(), "data_dir", cfg.DataDir, "backend", cfg.Store.Backend,
		"index", cfg.Index.Kind, "embedder", b.Embedder.Model())
	welcome.Addr = ln.Addr()
	welcome.Write(os.Stderr) // the development key only when this start made it
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

// consolidateEvery runs consolidation for every org at each interval until
// ctx ends.
func consolidateEvery(ctx context.Context, job *consolidate.Job, every time.Duration, m telemetry.Metrics, log *slog.Logger) {
	run := telemetry.Handler(telemetry.Consolidate, m, func(ctx context.Context, _ struct{}) ([]consolidate.Report, error) {
		return job.RunAll(ctx)
	}, consolidation.Outcomes)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := run(ctx, struct{}{}); err != nil {
				log.Error("scheduled consolidation", "err", err)
			}
		}
	}
}
