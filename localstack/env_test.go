package localstack_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/testenv"
	"github.com/agentmem/agentmem/pkg/queue/sqs"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

const region = "us-east-1"

// TestMain gives the SDK LocalStack's fake credentials and region when the
// environment has none (scripts/localstack.sh env prints the same), before
// any test runs in parallel.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": region} {
		if os.Getenv(k) == "" {
			os.Setenv(k, v)
		}
	}
	os.Exit(m.Run())
}

// endpoint is LocalStack's URL (LOCALSTACK_URL); the test skips without it
// unless REQUIRE_LOCALSTACK=1.
func endpoint(t *testing.T) string {
	t.Helper()
	return strings.TrimRight(testenv.Get(t, "LOCALSTACK_URL"), "/")
}

// unique returns prefix followed by random hex, a name no other run uses.
func unique(prefix string) string {
	var b [5]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// backend opens the AWS composition root, as every Lambda's aws.Setup does,
// on a fresh table of LocalStack's DynamoDB and a fresh alias of the local
// OpenSearch node, with the hashing embedder; both are removed at cleanup.
func backend(t *testing.T) (*aws.Backend, config.Config) {
	t.Helper()
	ep := endpoint(t)
	searchURL := testenv.Get(t, "OPENSEARCH_URL")
	env := map[string]string{"BACKEND": "aws", "INDEX": "opensearch", "EMBEDDER": "hash",
		"DYNAMODB_ENDPOINT": ep, "DYNAMODB_CREATE_TABLE": "true", "DYNAMODB_TABLE": unique("ls-"),
		"OPENSEARCH_URL": searchURL, "OPENSEARCH_ALIAS": unique("ls-"), "AWS_REGION": region,
		"SQS_ENDPOINT": ep, "ACCESS_RECORDING": "sync", "LOG_LEVEL": "warn"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	b, err := aws.Open(ctx, cfg, quiet())
	if err != nil {
		t.Fatalf("open the AWS backend on LocalStack: %v", err)
	}
	t.Cleanup(func() {
		b.Close()
		b.Index.DeleteAll(context.Background())
		dynamodb.DeleteTable(context.Background(), b.Store.Client(), cfg.Store.DynamoDBTable)
	})
	return b, cfg
}

// refresh makes the index show every write so far: the AWS backend writes
// without waiting for OpenSearch's refresh (within a second), and the tests
// search right after writing.
func refresh(t *testing.T, b *aws.Backend) {
	t.Helper()
	must(t, "refresh the index", b.Index.Refresh(context.Background()))
}

// sqsClient connects to LocalStack's SQS.
func sqsClient(t *testing.T) *awssqs.Client {
	t.Helper()
	c, err := sqs.NewClient(context.Background(), sqs.ClientOptions{Endpoint: endpoint(t), Region: region})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// newQueue creates a queue (with attrs) and returns its URL and ARN.
func newQueue(t *testing.T, c *awssqs.Client, name string, attrs map[string]string) (string, string) {
	t.Helper()
	ctx := context.Background()
	q, err := c.CreateQueue(ctx, &awssqs.CreateQueueInput{QueueName: sdkaws.String(name), Attributes: attrs})
	if err != nil {
		t.Fatalf("create queue %s: %v", name, err)
	}
	a, err := c.GetQueueAttributes(ctx, &awssqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
	if err != nil {
		t.Fatal(err)
	}
	url := sdkaws.ToString(q.QueueUrl)
	t.Cleanup(func() { c.DeleteQueue(context.Background(), &awssqs.DeleteQueueInput{QueueUrl: sdkaws.String(url)}) })
	return url, a.Attributes[string(types.QueueAttributeNameQueueArn)]
}

// receive long-polls url until it has n messages whose body keep accepts
// (the others are deleted: S3's test event, say) or until wait has passed,
// and returns them undeleted, as the Lambda event source hands them over.
func receive(t *testing.T, c *awssqs.Client, url string, n int, wait time.Duration, keep func(body string) bool) []types.Message {
	t.Helper()
	ctx := context.Background()
	var got []types.Message
	for deadline := time.Now().Add(wait); len(got) < n && time.Now().Before(deadline); {
		res, err := c.ReceiveMessage(ctx, &awssqs.ReceiveMessageInput{QueueUrl: sdkaws.String(url), MaxNumberOfMessages: 10,
			WaitTimeSeconds: 2, VisibilityTimeout: 60,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
			MessageAttributeNames:       []string{"All"}})
		if err != nil {
			t.Fatalf("receive from %s: %v", url, err)
		}
		for _, m := range res.Messages {
			if keep(sdkaws.ToString(m.Body)) {
				got = append(got, m)
			} else {
				deleteMessages(t, c, url, m)
			}
		}
	}
	if len(got) < n {
		t.Fatalf("%d of %d messages arrived in %s within %s", len(got), n, url, wait)
	}
	return got
}

func deleteMessages(t *testing.T, c *awssqs.Client, url string, ms ...types.Message) {
	t.Helper()
	for _, m := range ms {
		if _, err := c.DeleteMessage(context.Background(), &awssqs.DeleteMessageInput{QueueUrl: sdkaws.String(url), ReceiptHandle: m.ReceiptHandle}); err != nil {
			t.Fatalf("delete message: %v", err)
		}
	}
}

// eventBridge calls LocalStack's EventBridge API (the JSON protocol,
// signed as the SDK signs it) with in as the request and out as the
// response; the module has no EventBridge client and these tests need four
// calls of it.
func eventBridge(t *testing.T, action string, in, out any) {
	t.Helper()
	ctx := context.Background()
	body, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(t)+"/", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	req.Header.Set("X-Amz-Target", "AWSEvents."+action)
	sum := sha256.Sum256(body)
	creds := sdkaws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY")}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), "events", region, time.Now()); err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("events %s: %v", action, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("events %s: %s %s", action, res.Status, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("events %s: %v in %s", action, err, raw)
		}
	}
}

// must fails the test with what when err is not nil.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(fmt.Errorf("%s: %w", what, err))
	}
}
