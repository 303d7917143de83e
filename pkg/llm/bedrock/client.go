// Package bedrock adapts Amazon Bedrock (aws-sdk-go-v2 bedrockruntime): an
// Embedder over InvokeModel for Amazon Titan Text Embeddings V2 and Cohere
// Embed v3, and a Converse client that forces structured output through a
// tool, for fact extraction.
//
// Live Bedrock cannot be reached from the development machines; both are
// tested at the wire level against a local HTTP server that checks the real
// request paths, SigV4 headers and body shapes, and answers in the
// documented response formats, throttling errors included.
package bedrock

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/internal/awsconf"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
)

// ClientOptions configures NewClient.
type ClientOptions struct {
	Endpoint             string // override, for tests and VPC endpoints
	Region               string
	AccessKey, SecretKey string // static credentials; empty uses the default chain
	// MaxAttempts per call, throttling included (default 6), with
	// exponential backoff and full jitter up to MaxBackoff (default 10 s).
	MaxAttempts int
	MaxBackoff  time.Duration
}

// NewClient returns a bedrockruntime client whose retryer retries
// ThrottlingException, ServiceUnavailable and transient errors with jitter,
// without a client-side rate limit: throttling is the normal state of a busy
// Bedrock account.
func NewClient(ctx context.Context, o ClientOptions) (*bedrockruntime.Client, error) {
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 6
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 10 * time.Second
	}
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey,
		SecretKey: o.SecretKey, MaxAttempts: o.MaxAttempts, MaxBackoff: o.MaxBackoff, NoRateLimit: true})
	if err != nil {
		return nil, fmt.Errorf("bedrock: client: %w", err)
	}
	return bedrockruntime.NewFromConfig(cfg, func(bo *bedrockruntime.Options) {
		if o.Endpoint != "" {
			bo.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}
