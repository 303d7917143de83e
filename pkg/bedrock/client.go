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
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
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
// ThrottlingException, ServiceUnavailable and transient errors with jitter.
func NewClient(ctx context.Context, o ClientOptions) (*bedrockruntime.Client, error) {
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 6
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 10 * time.Second
	}
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = o.MaxAttempts
			so.MaxBackoff = o.MaxBackoff
			so.Backoff = retry.NewExponentialJitterBackoff(o.MaxBackoff)
			// Throttling is the normal state of a busy Bedrock account: do
			// not let the client-side rate limiter give up on it.
			so.RateLimiter = noRateLimit{}
		})
	})}
	region := o.Region
	if region == "" && o.Endpoint != "" {
		region = "us-east-1"
	}
	if region != "" {
		opts = append(opts, awsconfig.WithRegion(region))
	}
	if o.AccessKey != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(o.AccessKey, o.SecretKey, "")))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	return bedrockruntime.NewFromConfig(cfg, func(bo *bedrockruntime.Options) {
		if o.Endpoint != "" {
			bo.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}

type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }
