// Command api is the API Gateway Lambda: the HTTP API behind a REST API
// proxy integration, the caller taken from the request authorizer's context.
// The configuration selects the adapters: BACKEND=aws (DynamoDB),
// INDEX=opensearch, EMBEDDER=bedrock, EXTRACT_QUEUE_URL (SQS) for
// POST /v1/messages.
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/api"
	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/sqs"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := backend.Setup(ctx)
	opts := []api.Option{api.WithDocuments(b.Documents), api.WithConsolidation(b.Consolidation)}
	if cfg.ExtractQueueURL != "" {
		c, err := sqs.NewClient(ctx, sqs.ClientOptions{Endpoint: cfg.SQSEndpoint, Region: cfg.AWSRegion})
		backend.Must(log, "sqs", err)
		opts = append(opts, api.WithExtraction(sqs.New(c, cfg.ExtractQueueURL)))
	}
	lambda.Start(api.New(b.Service, nil, log, opts...).HandleAPIGateway)
}
