// Command extract is the SQS Lambda of fact extraction: each message is a
// job naming conversation turns; failures are reported per message
// (ReportBatchItemFailures) so that only they are retried, then dead-lettered.
package main

import (
	"context"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/wiring/backend"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := backend.Setup(ctx)
	if cfg.LLM.Provider == config.LLMBedrock {
		backend.Must(log, "extractor", b.UseBedrockExtractor(ctx, cfg, cfg.LLM.Model))
	}
	lambda.Start(b.Facts.HandleSQS)
}
