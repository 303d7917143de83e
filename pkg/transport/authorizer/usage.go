package authorizer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/agentmem/agentmem/internal/awsconf"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

// Per-org throttling in AWS. The REST API takes its API keys from the
// authorizer (apiKeySource AUTHORIZER) and every authorized method
// requires one, so API Gateway applies the usage plan's throttle and quota
// to the usage identifier the authorizer returns: one per org, whatever
// key or token of the org made the request. The identifier is the value of
// an API Gateway API key in the plan; the authorizer creates it the first
// time it sees the org (Enroller). It is not a credential: API Gateway
// reads it from the authorizer's answer only, never from the request.

// UsageKey is org's usage identifier: a value derived from the org id
// (API key values are 20 to 128 characters), the same in every
// authorizer instance.
func UsageKey(orgID string) string {
	sum := sha256.Sum256([]byte("agentmem-usage\x00" + orgID))
	return "agentmem-org-" + hex.EncodeToString(sum[:20])
}

// Enroller makes sure that a usage identifier is an API key of the API's
// usage plan. Enrol is idempotent and safe for concurrent use.
type Enroller interface {
	Enrol(ctx context.Context, key string) error
}

// APIGateway is the part of the API Gateway client a UsagePlan calls.
type APIGateway interface {
	GetUsagePlans(ctx context.Context, in *apigateway.GetUsagePlansInput, opts ...func(*apigateway.Options)) (*apigateway.GetUsagePlansOutput, error)
	CreateApiKey(ctx context.Context, in *apigateway.CreateApiKeyInput, opts ...func(*apigateway.Options)) (*apigateway.CreateApiKeyOutput, error)
	GetApiKeys(ctx context.Context, in *apigateway.GetApiKeysInput, opts ...func(*apigateway.Options)) (*apigateway.GetApiKeysOutput, error)
	CreateUsagePlanKey(ctx context.Context, in *apigateway.CreateUsagePlanKeyInput, opts ...func(*apigateway.Options)) (*apigateway.CreateUsagePlanKeyOutput, error)
}

// UsagePlan is the Enroller over API Gateway: the plan is found by its
// name (the CDK app names it; naming its id would make the authorizer
// depend on the API it authorizes), the org's key is created, or found
// when another instance created it, and added to the plan. What it has
// enrolled it remembers, so an org costs API Gateway calls once per
// instance.
type UsagePlan struct {
	Client APIGateway
	Plan   string // the usage plan's name

	mu     sync.Mutex
	planID string
	done   map[string]bool
}

// Enrol implements Enroller.
func (u *UsagePlan) Enrol(ctx context.Context, key string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done[key] {
		return nil
	}
	if u.planID == "" {
		id, err := u.findPlan(ctx)
		if err != nil {
			return err
		}
		u.planID = id
	}
	id, err := u.apiKey(ctx, key)
	if err != nil {
		return err
	}
	_, err = u.Client.CreateUsagePlanKey(ctx, &apigateway.CreateUsagePlanKeyInput{UsagePlanId: aws.String(u.planID), KeyId: aws.String(id), KeyType: aws.String("API_KEY")})
	var conflict *types.ConflictException
	if err != nil && !errors.As(err, &conflict) { // a conflict: in the plan already
		return fmt.Errorf("usage plan %s: add key: %w", u.Plan, err)
	}
	if u.done == nil {
		u.done = map[string]bool{}
	}
	u.done[key] = true
	return nil
}

// findPlan returns the id of the usage plan named u.Plan.
func (u *UsagePlan) findPlan(ctx context.Context) (string, error) {
	in := &apigateway.GetUsagePlansInput{Limit: aws.Int32(500)}
	for page := 0; page < 100; page++ {
		out, err := u.Client.GetUsagePlans(ctx, in)
		if err != nil {
			return "", fmt.Errorf("usage plan %s: %w", u.Plan, err)
		}
		for _, p := range out.Items {
			if aws.ToString(p.Name) == u.Plan {
				return aws.ToString(p.Id), nil
			}
		}
		if out.Position == nil {
			break
		}
		in.Position = out.Position
	}
	return "", fmt.Errorf("usage plan %s: not found", u.Plan)
}

// apiKey creates the API key of value key (named after it), or finds it
// when it exists, and returns its id.
func (u *UsagePlan) apiKey(ctx context.Context, key string) (string, error) {
	out, err := u.Client.CreateApiKey(ctx, &apigateway.CreateApiKeyInput{Name: aws.String(key), Value: aws.String(key), Enabled: true,
		Description: aws.String("usage identifier of one org (per-org throttling)")})
	if err == nil {
		return aws.ToString(out.Id), nil
	}
	var conflict *types.ConflictException
	if !errors.As(err, &conflict) {
		return "", fmt.Errorf("usage plan %s: create key: %w", u.Plan, err)
	}
	keys, err := u.Client.GetApiKeys(ctx, &apigateway.GetApiKeysInput{NameQuery: aws.String(key), IncludeValues: aws.Bool(true)})
	if err != nil {
		return "", fmt.Errorf("usage plan %s: find key: %w", u.Plan, err)
	}
	for _, k := range keys.Items {
		if aws.ToString(k.Value) == key {
			return aws.ToString(k.Id), nil
		}
	}
	return "", fmt.Errorf("usage plan %s: the key exists but was not found by name", u.Plan)
}

// NewAPIGateway returns an API Gateway client of region ("" the
// environment's).
func NewAPIGateway(ctx context.Context, region string) (*apigateway.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Region: region})
	if err != nil {
		return nil, fmt.Errorf("apigateway: client: %w", err)
	}
	return apigateway.NewFromConfig(cfg), nil
}
