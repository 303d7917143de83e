package sqs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/service"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	agentsqs "github.com/agentmem/agentmem/pkg/queue/sqs"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

var ctx = context.Background()

// client connects to the SQS server of SQS_ENDPOINT (ElasticMQ in make
// test). Without it the test skips, unless REQUIRE_SQS=1.
func client(t *testing.T) *sqs.Client {
	ep := testenv.Get(t, "SQS_ENDPOINT")
	c, err := agentsqs.NewClient(ctx, agentsqs.ClientOptions{Endpoint: ep, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// receive drains up to n messages as the Lambda event source would deliver
// them: an SQS event of the received messages.
func receive(t *testing.T, c *sqs.Client, url string) ([]types.Message, events.SQSEvent) {
	res, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10,
		WaitTimeSeconds: 1, VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	if err != nil {
		t.Fatal(err)
	}
	var ev events.SQSEvent
	for _, m := range res.Messages {
		ev.Records = append(ev.Records, events.SQSMessage{MessageId: aws.ToString(m.MessageId), Body: aws.ToString(m.Body),
			ReceiptHandle: aws.ToString(m.ReceiptHandle), Attributes: m.Attributes, EventSource: "aws:sqs"})
	}
	return res.Messages, ev
}

func TestJobsThroughSQS(t *testing.T) {
	c := client(t)
	name := fmt.Sprintf("extract-%d", time.Now().UnixNano())
	dlq, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name + "-dlq")})
	if err != nil {
		t.Fatal(err)
	}
	attrs, _ := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: dlq.QueueUrl, AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	redrive, _ := json.Marshal(map[string]string{"deadLetterTargetArn": attrs.Attributes["QueueArn"], "maxReceiveCount": "2"})
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name),
		Attributes: map[string]string{"RedrivePolicy": string(redrive), "VisibilityTimeout": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(ctx, t.TempDir(), hashing.New(128), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pipe := &extract.Pipeline{Service: b.Service.Pipelines(), Extractor: extract.Local{}, Log: quiet}
	acme := memory.Caller{OrgID: "acme"}
	res, err := b.Service.Create(ctx, acme, []service.NewMemory{{Type: memory.TypeMessage, EntityID: "Ana", RoomID: "r",
		Content: memory.Content{Text: "My favourite season is autumn."}}})
	if err != nil {
		t.Fatal(err)
	}
	sender := agentsqs.New(c, aws.ToString(q.QueueUrl))
	if err := sender.Enqueue(ctx, extract.Job{OrgID: "acme", MessageIDs: []string{res[0].ID}}); err != nil {
		t.Fatal(err)
	}
	// A poison message, as a broken producer might send.
	c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("{not a job")})

	for round := 1; round <= 4; round++ {
		msgs, ev := receive(t, c, aws.ToString(q.QueueUrl))
		if len(msgs) == 0 {
			time.Sleep(1200 * time.Millisecond) // let failed messages become visible again
			continue
		}
		out, err := pipe.HandleSQS(ctx, ev)
		if err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, f := range out.BatchItemFailures {
			failed[f.ItemIdentifier] = true
		}
		// As the Lambda event source does: delete what succeeded, leave the failures.
		for _, m := range msgs {
			if !failed[aws.ToString(m.MessageId)] {
				c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
			} else {
				t.Fatalf("a job was reported for retry: %v", aws.ToString(m.Body))
			}
		}
		time.Sleep(1200 * time.Millisecond)
	}
	if n, _ := b.Service.Count(ctx, acme, memory.Filter{Types: []memory.Type{memory.TypeFact}}); n != 1 {
		t.Fatalf("%d facts extracted through SQS, want 1", n)
	}
	// A job that can never succeed is rejected once (logged and deleted),
	// not retried into the dead-letter queue.
	if dead, _ := receive(t, c, aws.ToString(dlq.QueueUrl)); len(dead) != 0 {
		t.Fatalf("dead-letter queue holds %d messages, want none: the poison job is rejected once", len(dead))
	}
	if left, _ := receive(t, c, aws.ToString(q.QueueUrl)); len(left) != 0 {
		t.Fatalf("the queue still holds %d messages", len(left))
	}
}
