// Command ingest is the S3 notification Lambda: ObjectCreated ingests the
// object, ObjectRemoved deletes its document (see ingest.HandleS3). Its
// scheduled EventBridge rule runs the maintenance pass: interrupted
// ingestions settled or rolled back, pending knowledge retried (see
// ingest.Maintenance).
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/blob/s3"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := aws.Setup(ctx)
	docs, err := ingestion.New(b.Service, b.Caps, cfg.Ingest, log)
	aws.Must(log, "documents", err)
	c, err := s3.NewClient(ctx, s3.ClientOptions{Region: cfg.AWS.Region})
	aws.Must(log, "s3", err)
	fetch := func(ctx context.Context, bucket, key string) ([]byte, string, error) {
		data, obj, err := s3.New(c, bucket).Get(ctx, key)
		return data, obj.ETag, err
	}
	maint, err := ingestion.Maintenance(docs, b.Caps, b.Extraction, aws.MaintenanceGrace)
	aws.Must(log, "maintenance", err)
	lambda.Start(telemetry.Handler(telemetry.Ingest, b.Metrics, ingest.Handler(docs, fetch, maint), ingestion.InvocationOutcomes))
}
