// Command extract is the SQS Lambda of fact extraction: each message is a
// job naming conversation turns; failures are reported per message
// (ReportBatchItemFailures) so that only they are retried, then dead-lettered.
// Facts are extracted by the LLM of LLM_PROVIDER (bedrock with
// BEDROCK_LLM_MODEL in the CDK app), else by the local pattern extractor.
// With the LLM, after each batch, the knowledge its orgs' writes left
// pending is extracted by it too (aws.Backend.ExtractPendingAfter).
package main

import (
	"context"

	"github.com/agentmem/agentmem/pkg/telemetry"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	ctx := context.Background()
	b, _, log := aws.Setup(ctx)
	facts, err := extraction.New(b.Service, b.Caps, b.Model, log)
	aws.Must(log, "extraction", err)
	lambda.Start(telemetry.Handler(telemetry.Extract, b.Metrics, b.ExtractPendingAfter(facts.HandleSQS, log), extraction.Outcomes))
}
