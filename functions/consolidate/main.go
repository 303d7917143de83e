// Command consolidate is the EventBridge scheduled Lambda: each invocation
// consolidates every org (see consolidate.Job.RunAll).
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
	"github.com/agentmem/agentmem/pkg/consolidate"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	ctx := context.Background()
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	b, err := backend.Open(ctx, cfg, log)
	if err != nil {
		log.Error("backend", "err", err)
		os.Exit(1)
	}
	lambda.Start(func(ctx context.Context, ev events.EventBridgeEvent) ([]consolidate.Report, error) {
		log.Info("scheduled consolidation", "event_id", ev.ID, "time", ev.Time)
		return b.Consolidation.RunAll(ctx)
	})
}
