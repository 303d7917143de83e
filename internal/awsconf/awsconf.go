// Package awsconf loads the AWS SDK configuration the adapters share: the
// region (us-east-1 by default when an endpoint override points at a local
// server), optional static credentials, and a standard retryer with
// exponential backoff and jitter.
package awsconf

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Options configures Load.
type Options struct {
	// Endpoint overrides the service endpoint (local servers, LocalStack).
	Endpoint string
	// Region defaults to the environment's, or us-east-1 with an Endpoint.
	Region string
	// Static credentials for local servers; empty uses the default chain.
	AccessKey, SecretKey string
	// MaxAttempts per call (default 5) and MaxBackoff between them
	// (default 20 s), throttling included.
	MaxAttempts int
	MaxBackoff  time.Duration
	// NoRateLimit disables the client-side retry token bucket, for services
	// whose throttling is their normal state (Bedrock).
	NoRateLimit bool
}

// Load returns the SDK configuration for o.
func Load(ctx context.Context, o Options) (aws.Config, error) {
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 5
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 20 * time.Second
	}
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRetryer(func() aws.Retryer {
		return retry.NewStandard(func(so *retry.StandardOptions) {
			so.MaxAttempts = o.MaxAttempts
			so.MaxBackoff = o.MaxBackoff
			so.Backoff = retry.NewExponentialJitterBackoff(o.MaxBackoff)
			if o.NoRateLimit {
				so.RateLimiter = noRateLimit{}
			}
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
	return awsconfig.LoadDefaultConfig(ctx, opts...)
}

type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }
