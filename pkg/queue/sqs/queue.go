// Package sqs sends extraction jobs to Amazon SQS (aws-sdk-go-v2), where
// the extract Lambda consumes them (see the extraction pipeline's HandleSQS).
package sqs

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentmem/agentmem/internal/awsconf"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Queue sends jobs to one queue. It is safe for concurrent use.
type Queue struct {
	c   *sqs.Client
	url string
}

var _ memory.ExtractionQueue = (*Queue)(nil)

// New returns a Queue sending to queueURL.
func New(c *sqs.Client, queueURL string) *Queue { return &Queue{c: c, url: queueURL} }

// ClientOptions configures NewClient.
type ClientOptions struct {
	Endpoint             string // ElasticMQ or LocalStack; empty for AWS
	Region               string
	AccessKey, SecretKey string
}

// NewClient returns an SQS client with the standard retryer.
func NewClient(ctx context.Context, o ClientOptions) (*sqs.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey, SecretKey: o.SecretKey})
	if err != nil {
		return nil, fmt.Errorf("sqs: client: %w", err)
	}
	return sqs.NewFromConfig(cfg, func(so *sqs.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}

// Enqueue implements memory.ExtractionQueue: one message per job, with the org as a
// message attribute for tracing.
func (q *Queue) Enqueue(ctx context.Context, j memory.ExtractionJob) error {
	body, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("sqs: encode job: %w", err)
	}
	_, err = q.c.SendMessage(ctx, &sqs.SendMessageInput{
		QueueUrl:    aws.String(q.url),
		MessageBody: aws.String(string(body)),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"orgId": {DataType: aws.String("String"), StringValue: aws.String(j.OrgID)},
		},
	})
	if err != nil {
		return fmt.Errorf("sqs: send: %w", err)
	}
	return nil
}
