// Command api is the API Gateway Lambda: the HTTP API behind a REST API
// proxy integration, the caller taken from the request authorizer's context.
// The configuration selects the adapters: BACKEND=aws (DynamoDB),
// INDEX=opensearch, EMBEDDER=bedrock, EXTRACT_QUEUE_URL (SQS) for
// POST /v1/messages.
package main

import (
	"context"

	"github.com/agentmem/agentmem/queue/sqs"
	"github.com/agentmem/agentmem/transport/httpapi"
	"github.com/agentmem/agentmem/wiring/backend"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := backend.Setup(ctx)
	opts := []httpapi.Option{httpapi.WithDocuments(b.Documents), httpapi.WithConsolidation(b.Consolidation)}
	if cfg.Extraction.QueueURL != "" {
		c, err := sqs.NewClient(ctx, sqs.ClientOptions{Endpoint: cfg.Extraction.QueueEndpoint, Region: cfg.AWS.Region})
		backend.Must(log, "sqs", err)
		opts = append(opts, httpapi.WithExtraction(sqs.New(c, cfg.Extraction.QueueURL)))
	}
	lambda.Start(httpapi.New(b.Service, nil, log, opts...).HandleAPIGateway)
}
