// Command extract is the SQS Lambda of fact extraction: each message is a
// job naming conversation turns; failures are reported per message
// (ReportBatchItemFailures) so that only they are retried, then dead-lettered.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/pkg/backend"
	"github.com/agentmem/agentmem/pkg/config"
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
	if model := os.Getenv("BEDROCK_LLM_MODEL"); model != "" {
		if err := b.UseBedrockExtractor(ctx, cfg, model); err != nil {
			log.Error("extractor", "err", err)
			os.Exit(1)
		}
	}
	lambda.Start(b.Facts.HandleSQS)
}
