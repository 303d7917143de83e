// Command consolidate is the EventBridge scheduled Lambda: each invocation
// consolidates every org (see consolidate.Job.RunAll).
package main

import (
	"context"

	"github.com/agentmem/agentmem/pipeline/consolidate"
	"github.com/agentmem/agentmem/wiring/backend"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	b, _, log := backend.Setup(context.Background())
	lambda.Start(func(ctx context.Context, ev events.EventBridgeEvent) ([]consolidate.Report, error) {
		log.Info("scheduled consolidation", "event_id", ev.ID, "time", ev.Time)
		return b.Consolidation.RunAll(ctx)
	})
}
