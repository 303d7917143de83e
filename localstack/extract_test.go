package localstack_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/queue/sqs"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/extraction"
	"github.com/agentmem/agentmem/pkg/wiring/llm"
	"github.com/aws/aws-lambda-go/events"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// TestSQSToExtract: extraction jobs sent on a LocalStack queue (with its
// dead-letter queue, as the CDK app configures it) by the API's producer
// are received as the SQS event source receives them and run by the
// extract handler, composed as functions/extract does (no LLM configured:
// the local pattern extractor). A job only reaches the messages its own
// org and agent may read; a job that can never succeed is dropped, not
// retried into the dead-letter queue.
func TestSQSToExtract(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, cfg := backend(t)
	model, err := llm.New(ctx, cfg.LLM, cfg.AWS)
	must(t, "llm", err)
	facts, err := extraction.New(b.Service, b.Caps, model, quiet())
	must(t, "extraction", err)
	if facts.Extractor.Name() != (extract.Local{}).Name() {
		t.Fatalf("extractor %s without an LLM configured", facts.Extractor.Name())
	}

	q := sqsClient(t)
	name := unique("ls-extract-")
	_, dlqARN := newQueue(t, q, name+"-dlq", nil)
	redrive, _ := json.Marshal(map[string]string{"deadLetterTargetArn": dlqARN, "maxReceiveCount": "2"})
	url, arn := newQueue(t, q, name, map[string]string{"RedrivePolicy": string(redrive)})

	message := func(c memory.Caller, who, text string) string {
		t.Helper()
		res, err := b.Service.Create(ctx, c, []service.NewMemory{{Type: memory.TypeMessage, EntityID: who, RoomID: "chat",
			Content: memory.Content{Text: text}}})
		must(t, "create message", err)
		return res[0].ID
	}
	acme, acmeX, globex := memory.Caller{OrgID: "acme"}, memory.Caller{OrgID: "acme", AgentID: "x"}, memory.Caller{OrgID: "globex"}
	anaMsg := message(acme, "Ana", "My favourite season is autumn.")
	xMsg := message(acmeX, "Bo", "My favourite drink is green tea.")
	globexMsg := message(globex, "Cy", "My favourite city is Lisbon.")

	producer := sqs.New(q, url) // what POST /v1/messages queues with
	for _, j := range []extract.Job{
		{OrgID: "acme", MessageIDs: []string{anaMsg}},
		{OrgID: "globex", MessageIDs: []string{anaMsg}},                 // another org's message: not found there
		{OrgID: "acme", AgentID: "bot", MessageIDs: []string{xMsg}},     // another agent's message: not visible
		{OrgID: "globex", MessageIDs: []string{globexMsg, "mem_gone1"}}, // a deleted message is skipped
	} {
		must(t, "enqueue", producer.Enqueue(ctx, j))
	}
	_, err = q.SendMessage(ctx, &awssqs.SendMessageInput{QueueUrl: sdkaws.String(url), MessageBody: sdkaws.String("{not a job")})
	must(t, "send the poison message", err)

	msgs := receive(t, q, url, 5, time.Minute, func(string) bool { return true })
	var ev events.SQSEvent
	for _, m := range msgs {
		ev.Records = append(ev.Records, sqsRecord(m, arn))
	}
	res, err := facts.HandleSQS(ctx, ev)
	must(t, "extract handler", err)
	if len(res.BatchItemFailures) != 0 {
		t.Fatalf("jobs reported for retry: %+v", res.BatchItemFailures)
	}
	deleteMessages(t, q, url, msgs...) // as the event source does with what succeeded

	factsOf := func(c memory.Caller) []string {
		t.Helper()
		page, err := b.Service.List(ctx, c, memory.Filter{Types: []memory.Type{memory.TypeFact}}, 50, "")
		must(t, "list facts", err)
		var texts []string
		for _, m := range page.Memories {
			texts = append(texts, m.Content.Text)
		}
		return texts
	}
	for _, tc := range []struct {
		name   string
		caller memory.Caller
		want   int
	}{
		{"acme: Ana's fact only (agent x's message was named by agent bot's job)", acme, 1},
		{"globex: its own message's fact, none from acme's", globex, 1},
	} {
		if got := factsOf(tc.caller); len(got) != tc.want {
			t.Errorf("%s: facts %q, want %d", tc.name, got, tc.want)
		}
	}
	if got := factsOf(acmeX); len(got) != 1 {
		t.Errorf("agent x sees the org's facts only: %q", got)
	}
	left, err := q.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{QueueUrl: sdkaws.String(url), WaitTimeSeconds: 1})
	must(t, "receive", err)
	if len(left.Messages) != 0 {
		t.Errorf("the queue still holds %d messages", len(left.Messages))
	}
}

// sqsRecord is the SQS event record the Lambda event source makes of a
// received message.
func sqsRecord(m types.Message, queueARN string) events.SQSMessage {
	attrs := map[string]events.SQSMessageAttribute{}
	for k, v := range m.MessageAttributes {
		attrs[k] = events.SQSMessageAttribute{DataType: sdkaws.ToString(v.DataType), StringValue: v.StringValue}
	}
	return events.SQSMessage{MessageId: sdkaws.ToString(m.MessageId), ReceiptHandle: sdkaws.ToString(m.ReceiptHandle),
		Body: sdkaws.ToString(m.Body), Md5OfBody: sdkaws.ToString(m.MD5OfBody), Attributes: m.Attributes,
		MessageAttributes: attrs, EventSource: "aws:sqs", EventSourceARN: queueARN, AWSRegion: region}
}
