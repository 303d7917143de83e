// Command api is the API Gateway Lambda: the HTTP API behind a REST API
// proxy integration, the caller taken from the request authorizer's context.
// It opens the AWS backend (BACKEND=aws, INDEX=opensearch, EMBEDDER=bedrock)
// with document ingestion, the admin endpoints (consolidation, API keys,
// usage, extraction settings), the registry of entities, worlds and rooms,
// per-org quotas and the reranker RERANKER names; with
// EXTRACT_QUEUE_URL, POST /v1/messages queues extraction jobs on SQS. It
// serves the MCP server at /mcp too (stateless, JSON responses), behind
// the same authorizer. With TOKEN_SECRET_NAME, POST /v1/tokens mints
// end-user tokens signed with that Secrets Manager secret.
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/auth/secretsmanager"
	"github.com/agentmem/agentmem/pkg/queue/sqs"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/consolidation"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/agentmem/agentmem/pkg/wiring/rerank"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := aws.Setup(ctx, rerank.FromConfig)
	docs, err := ingestion.New(b.Service, b.Caps, cfg.Ingest, log)
	aws.Must(log, "documents", err)
	job, err := consolidation.New(b.Service, b.Caps, cfg.Consolidation, log)
	aws.Must(log, "consolidation", err)
	parts := api.Parts{Service: b.Service, Quotas: api.Quotas(cfg.Quotas, b.Store, b.Store), MaxKeys: cfg.Quotas.Keys,
		Knowledge: b.Knowledge, Registry: b.Registry, Workstreams: b.Workstreams, Documents: docs, Consolidation: job,
		Settings: service.NewSettingsStore(b.Caps.Records), Keys: b.Store, Idempotency: b.Store.Idempotency(), Metrics: b.Metrics}
	keys, err := secretsmanager.OpenKeys(ctx, cfg.AWS.TokenSecretName, secretsmanager.ClientOptions{Region: cfg.AWS.Region})
	aws.Must(log, "token signing secret", err)
	if keys != nil {
		parts.Tokens = auth.NewTokens(keys)
	}
	if cfg.Extraction.QueueURL != "" {
		c, err := sqs.NewClient(ctx, sqs.ClientOptions{Endpoint: cfg.Extraction.QueueEndpoint, Region: cfg.AWS.Region})
		aws.Must(log, "sqs", err)
		parts.Extraction = sqs.New(c, cfg.Extraction.QueueURL)
	}
	lambda.Start(telemetry.Handler("api", b.Metrics, api.New(parts, nil, log).HandleAPIGateway, nil))
}
