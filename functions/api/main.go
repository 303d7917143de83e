// Command api is the API Gateway Lambda: the HTTP API behind a REST API
// proxy integration, the caller taken from the request authorizer's context.
//
// Until the AWS adapters land (DynamoDB store, Bedrock embeddings) the store
// is the embedded one in DATA_DIR (default /tmp/memory), which is only
// useful for local invocation; INDEX=opensearch selects OpenSearch.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/pkg/api"
	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
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
	lambda.Start(api.New(b.Service, nil, log, api.WithDocuments(b.Documents)).HandleAPIGateway)
}
