package localstack_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/blob/s3"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring/ingestion"
	"github.com/aws/aws-lambda-go/events"
	sdkaws "github.com/aws/aws-sdk-go-v2/aws"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	awssqs "github.com/aws/aws-sdk-go-v2/service/sqs"
)

// TestS3ToIngest: objects put into a LocalStack bucket raise S3 event
// notifications into an SQS queue (standing in for the Lambda trigger);
// each event received there is handed to the ingest handler, composed as
// functions/ingest does, and the documents' fragments become searchable by
// their owners only. Deleting an object removes its fragments the same way.
func TestS3ToIngest(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b, cfg := backend(t)
	docs, err := ingestion.New(b.Service, b.Caps, cfg.Ingest, quiet())
	must(t, "ingestion", err)
	c, err := s3.NewClient(ctx, s3.ClientOptions{Endpoint: endpoint(t), Region: region})
	must(t, "s3 client", err)
	// The handler of functions/ingest: the object is read from the bucket
	// the event names.
	fetch := func(ctx context.Context, bucket, key string) ([]byte, string, error) {
		data, obj, err := s3.New(c, bucket).Get(ctx, key)
		return data, obj.ETag, err
	}
	handler := func(ctx context.Context, ev events.S3Event) ([]ingest.Outcome, error) {
		return docs.HandleS3(ctx, ev, fetch)
	}

	q := sqsClient(t)
	url, arn := newQueue(t, q, unique("ls-ingest-"), nil)
	bucket := unique("ls-docs-")
	blobs := s3.New(c, bucket)
	must(t, "create bucket", blobs.CreateBucket(ctx))
	_, err = c.PutBucketNotificationConfiguration(ctx, &awss3.PutBucketNotificationConfigurationInput{
		Bucket: sdkaws.String(bucket),
		NotificationConfiguration: &s3types.NotificationConfiguration{QueueConfigurations: []s3types.QueueConfiguration{{
			QueueArn: sdkaws.String(arn), Events: []s3types.Event{"s3:ObjectCreated:*", "s3:ObjectRemoved:*"}}}},
	})
	must(t, "bucket notification", err)

	objects := map[string]string{
		"acme/_org/handbook.md":     "# Handbook\n\nVacation requests go to the people team two weeks ahead.",
		"acme/bot/meeting notes.md": "Retrospective: the vacation calendar moves to the shared drive.",
		"globex/_org/handbook.md":   "# Globex handbook\n\nVacation is approved by your manager.",
		"stray.txt":                 "A vacation note outside the {org}/{agent}/{path} layout.",
	}
	for key, text := range objects {
		must(t, "put "+key, blobs.Put(ctx, key, []byte(text), "text/markdown"))
	}
	outs := deliver(t, q, url, len(objects), handler)
	byKey := map[string]ingest.Outcome{}
	for _, o := range outs {
		byKey[o.Key] = o
	}
	for key := range objects {
		want := "indexed"
		if key == "stray.txt" {
			want = "rejected" // never attributed to a guessed tenant
		}
		if o := byKey[key]; o.Action != want {
			t.Errorf("%s: %+v, want %s", key, o, want)
		}
	}
	doc := func(key string) string { return byKey[key].Status.ID }
	handbook, notes, globex := doc("acme/_org/handbook.md"), doc("acme/bot/meeting notes.md"), doc("globex/_org/handbook.md")

	searchDocs := func(c memory.Caller) []string {
		t.Helper()
		refresh(t, b)
		res, err := b.Service.Search(ctx, c, service.SearchRequest{Query: "vacation", Mode: service.ModeHybrid, K: 20})
		must(t, "search", err)
		var ids []string
		for _, r := range res {
			if !slices.Contains(ids, r.Memory.DocumentID) {
				ids = append(ids, r.Memory.DocumentID)
			}
		}
		slices.Sort(ids)
		return ids
	}
	sorted := func(ids ...string) []string { return slices.Sorted(slices.Values(ids)) }
	tests := []struct {
		name   string
		caller memory.Caller
		want   []string
	}{
		{"acme", memory.Caller{OrgID: "acme"}, sorted(handbook, notes)},
		{"acme's bot", memory.Caller{OrgID: "acme", AgentID: "bot"}, sorted(handbook, notes)},
		{"acme's other agent", memory.Caller{OrgID: "acme", AgentID: "other"}, sorted(handbook)},
		{"globex", memory.Caller{OrgID: "globex"}, sorted(globex)},
	}
	for _, tc := range tests {
		if got := searchDocs(tc.caller); !slices.Equal(got, tc.want) {
			t.Errorf("%s finds documents %v, want %v", tc.name, got, tc.want)
		}
	}

	// Deleting the object: its ObjectRemoved event removes its fragments.
	must(t, "delete", blobs.Delete(ctx, "acme/_org/handbook.md"))
	outs = deliver(t, q, url, 1, handler)
	if len(outs) != 1 || outs[0].Action != "removed" || outs[0].Key != "acme/_org/handbook.md" {
		t.Fatalf("object removed: %+v", outs)
	}
	if got := searchDocs(memory.Caller{OrgID: "acme"}); !slices.Equal(got, []string{notes}) {
		t.Errorf("after the delete acme finds documents %v, want only %s", got, notes)
	}
	if got := searchDocs(memory.Caller{OrgID: "globex"}); !slices.Equal(got, []string{globex}) {
		t.Errorf("acme's delete touched globex: %v", got)
	}
}

// deliver receives n S3 event notifications from the queue, hands each to
// handler as the Lambda runtime would, deletes the messages it handled
// without error, and returns the outcomes.
func deliver(t *testing.T, q *awssqs.Client, url string, n int, handler func(context.Context, events.S3Event) ([]ingest.Outcome, error)) []ingest.Outcome {
	t.Helper()
	// S3 sends an s3:TestEvent (no Records) when the notification is set.
	isEvent := func(body string) bool { return strings.Contains(body, `"Records"`) }
	var outs []ingest.Outcome
	for len(outs) < n {
		msgs := receive(t, q, url, 1, time.Minute, isEvent)
		for _, m := range msgs {
			var ev events.S3Event
			must(t, "decode the S3 event", json.Unmarshal([]byte(sdkaws.ToString(m.Body)), &ev))
			if len(ev.Records) == 0 || ev.Records[0].EventSource != "aws:s3" {
				t.Fatalf("not an S3 event: %s", sdkaws.ToString(m.Body))
			}
			o, err := handler(context.Background(), ev)
			must(t, "ingest handler", err)
			outs = append(outs, o...)
			deleteMessages(t, q, url, m)
		}
	}
	if len(outs) != n {
		t.Fatalf("%d outcomes, want %d: %+v", len(outs), n, outs)
	}
	return outs
}
