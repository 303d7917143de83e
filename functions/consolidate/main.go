// Command consolidate is the EventBridge scheduled Lambda: each invocation
// consolidates every org (see consolidate.Job.RunAll).
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	b, cfg, log := aws.Setup(context.Background())
	job, err := consolidation.New(b.Service, b.Caps, cfg.Consolidation, log)
	aws.Must(log, "consolidation", err)
	lambda.Start(telemetry.Handler(telemetry.Consolidate, b.Metrics, func(ctx context.Context, ev events.EventBridgeEvent) ([]consolidate.Report, error) {
		log.Info("scheduled consolidation", "event_id", ev.ID, "time", ev.Time)
		return job.RunAll(ctx)
	}, consolidation.Outcomes))
}
