package dynamodb

import (
	"context"
	"fmt"
	"github.com/agentmem/agentmem/internal/awsconf"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
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
	// Capacity, when set, counts the capacity units every call consumes
	// (each call then asks for them); nil, the default, leaves calls as
	// they are.
	Capacity *Capacity
}

// NewClient returns a DynamoDB client that retries throttling with
// exponential backoff and jitter: up to 8 attempts, 5 s apart at most.
func NewClient(ctx context.Context, o ClientOptions) (*dynamodb.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey,
		SecretKey: o.SecretKey, MaxAttempts: 8, MaxBackoff: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("dynamodb: client: %w", err)
	}
	return dynamodb.NewFromConfig(cfg, func(do *dynamodb.Options) {
		if o.Endpoint != "" {
			do.BaseEndpoint = aws.String(o.Endpoint)
		}
		if o.Capacity != nil {
			o.Capacity.apply(do)
		}
	}), nil
}
