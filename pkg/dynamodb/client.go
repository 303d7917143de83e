package dynamodb

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// ClientOptions configures NewClient.
type ClientOptions struct {
	// Endpoint overrides the service endpoint (DynamoDB Local, LocalStack);
	// empty uses AWS's.
	Endpoint string
	// Region defaults to the environment's, or us-east-1 with an endpoint.
	Region string
	// Static credentials, for local servers; empty uses the default chain.
	AccessKey, SecretKey string
}

// NewClient returns a DynamoDB client with the standard retryer tuned for
// throttling: up to 8 attempts with exponential backoff and jitter, capped
// at 5 s.
func NewClient(ctx context.Context, o ClientOptions) (*dynamodb.Client, error) {
	opts := []func(*awsconfig.LoadOptions) error{
		awsconfig.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(so *retry.StandardOptions) {
				so.MaxAttempts = 8
				so.MaxBackoff = 5 * time.Second
			})
		}),
	}
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
	return dynamodb.NewFromConfig(cfg, func(do *dynamodb.Options) {
		if o.Endpoint != "" {
			do.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}
