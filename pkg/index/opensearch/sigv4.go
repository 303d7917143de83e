package opensearch

import (
	"context"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/opensearch-project/opensearch-go/v4/signer"
	"github.com/opensearch-project/opensearch-go/v4/signer/awsv2"
)

// NewSigV4Signer signs requests with the environment's AWS credentials
// for Amazon OpenSearch Service (service "es"; "aoss" for Serverless).
func NewSigV4Signer(ctx context.Context, region, service string) (signer.Signer, error) {
	opts := []func(*awsconfig.LoadOptions) error{}
	if region != "" {
		opts = append(opts, awsconfig.WithRegion(region))
	}
	cfg, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, err
	}
	if service == "" {
		service = "es"
	}
	return awsv2.NewSignerWithService(cfg, service)
}
