// Command api is the API Gateway Lambda: the HTTP API behind a REST API
// proxy integration, the caller taken from the request authorizer's context.
//
// The configuration selects the adapters: BACKEND=aws (DynamoDB),
// INDEX=opensearch, EMBEDDER=bedrock, EXTRACT_QUEUE_URL (SQS) for
// POST /v1/messages. With the defaults it runs on the embedded backend in
// DATA_DIR (default /tmp/memory), which is only useful for local invocation.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/pkg/api"
	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
	"github.com/agentmem/agentmem/pkg/sqs"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	log := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg, err := config.Load(func(k string) string {
		if v := os.Getenv(k); v != "" || k != "DATA_DIR" {
			return v
		}
		return "/tmp/memory"
	})
	if err != nil {
		log.Error("config", "err", err)
		os.Exit(1)
	}
	b, err := backend.Open(context.Background(), cfg, log)
	if err != nil {
		log.Error("backend", "err", err)
		os.Exit(1)
	}
	opts := []api.Option{api.WithDocuments(b.Documents), api.WithConsolidation(b.Consolidation)}
	if cfg.ExtractQueueURL != "" {
		c, err := sqs.NewClient(context.Background(), sqs.ClientOptions{Endpoint: cfg.SQSEndpoint, Region: cfg.AWSRegion})
		if err != nil {
			log.Error("sqs", "err", err)
			os.Exit(1)
		}
		opts = append(opts, api.WithExtraction(sqs.New(c, cfg.ExtractQueueURL)))
	}
	lambda.Start(api.New(b.Service, nil, log, opts...).HandleAPIGateway)
}
