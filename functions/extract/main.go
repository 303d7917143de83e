// Command extract is the SQS Lambda of fact extraction: each message is a
// job naming conversation turns; failures are reported per message
// (ReportBatchItemFailures) so that only they are retried, then dead-lettered.
// Facts are extracted by the LLM of LLM_PROVIDER (bedrock with
// BEDROCK_LLM_MODEL in the CDK app), else by the local pattern extractor.
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, cfg, log := aws.Setup(ctx)
	model, err := llm.New(ctx, cfg.LLM, cfg.AWS)
	aws.Must(log, "llm", err)
	facts, err := extraction.New(b.Service, b.Caps, model, log)
	aws.Must(log, "extraction", err)
	lambda.Start(telemetry.Handler(telemetry.Extract, b.Metrics, facts.HandleSQS, extraction.Outcomes))
}
