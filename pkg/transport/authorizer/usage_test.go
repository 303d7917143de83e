package authorizer_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/transport/authorizer"
	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigateway/types"
)

// fakeGateway is API Gateway's usage plans and API keys in memory, with
// its conflicts: a key value exists once, a key is in a plan once.
type fakeGateway struct {
	mu      sync.Mutex
	plans   []types.UsagePlan
	keys    map[string]string // value → id
	members map[string]bool   // plan/key id
	calls   int
}

func (f *fakeGateway) GetUsagePlans(_ context.Context, in *apigateway.GetUsagePlansInput, _ ...func(*apigateway.Options)) (*apigateway.GetUsagePlansOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	// One plan a page, to exercise the paging.
	i := 0
	if in.Position != nil {
		fmt.Sscan(*in.Position, &i)
	}
	out := &apigateway.GetUsagePlansOutput{Items: f.plans[i : i+1]}
	if i+1 < len(f.plans) {
		out.Position = aws.String(fmt.Sprint(i + 1))
	}
	return out, nil
}

func (f *fakeGateway) CreateApiKey(_ context.Context, in *apigateway.CreateApiKeyInput, _ ...func(*apigateway.Options)) (*apigateway.CreateApiKeyOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if len(*in.Value) < 20 || len(*in.Value) > 128 || !in.Enabled {
		return nil, &types.BadRequestException{Message: aws.String("bad key")}
	}
	if _, ok := f.keys[*in.Value]; ok {
		return nil, &types.ConflictException{Message: aws.String("API key already exists")}
	}
	id := fmt.Sprintf("k%d", len(f.keys))
	f.keys[*in.Value] = id
	return &apigateway.CreateApiKeyOutput{Id: aws.String(id), Value: in.Value}, nil
}

func (f *fakeGateway) GetApiKeys(_ context.Context, in *apigateway.GetApiKeysInput, _ ...func(*apigateway.Options)) (*apigateway.GetApiKeysOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	out := &apigateway.GetApiKeysOutput{}
	for v, id := range f.keys {
		if strings.HasPrefix(v, *in.NameQuery) {
			out.Items = append(out.Items, types.ApiKey{Id: aws.String(id), Name: aws.String(v), Value: aws.String(v)})
		}
	}
	return out, nil
}

func (f *fakeGateway) CreateUsagePlanKey(_ context.Context, in *apigateway.CreateUsagePlanKeyInput, _ ...func(*apigateway.Options)) (*apigateway.CreateUsagePlanKeyOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	m := *in.UsagePlanId + "/" + *in.KeyId
	if f.members[m] {
		return nil, &types.ConflictException{Message: aws.String("already in the plan")}
	}
	f.members[m] = true
	return &apigateway.CreateUsagePlanKeyOutput{Id: in.KeyId}, nil
}

// TestUsageIdentifier: the authorizer names one usage identifier per org,
// the same for every key and token of the org and for every authorizer
// instance, and different across orgs; each is an API key of the named
// usage plan, created once; a second instance finds the key another one
// created; a plan that does not exist fails the request (API Gateway
// would refuse an unknown key anyway).
func TestUsageIdentifier(t *testing.T) {
	keys, err := auth.ParseKeys("key-acme-0123456789ab=acme,key-bot-0123456789abc=acme/bot,key-other-0123456789a=other")
	if err != nil {
		t.Fatal(err)
	}
	gw := &fakeGateway{keys: map[string]string{}, members: map[string]bool{},
		plans: []types.UsagePlan{{Id: aws.String("p0"), Name: aws.String("agentmem-dev-internal")}, {Id: aws.String("p1"), Name: aws.String("agentmem-dev-tenants")}}}
	arn := "arn:aws:execute-api:us-east-1:123456789012:abc123/dev/POST/v1/search"
	handle := func(h authorizer.Handler, bearer string) (events.APIGatewayCustomAuthorizerResponse, error) {
		return h.Handle(context.Background(), events.APIGatewayCustomAuthorizerRequestTypeRequest{MethodArn: arn,
			Headers: map[string]string{"Authorization": "Bearer " + bearer}})
	}
	first := authorizer.Handler{Keys: keys, Usage: &authorizer.UsagePlan{Client: gw, Plan: "agentmem-dev-tenants"}}
	second := authorizer.Handler{Keys: keys, Usage: &authorizer.UsagePlan{Client: gw, Plan: "agentmem-dev-tenants"}}
	got := map[string]string{}
	for _, tc := range []struct {
		name   string
		h      authorizer.Handler
		bearer string
		org    string
	}{
		{"org key", first, "key-acme-0123456789ab", "acme"},
		{"agent key of the same org", first, "key-bot-0123456789abc", "acme"},
		{"another org", first, "key-other-0123456789a", "other"},
		{"another instance, same org", second, "key-acme-0123456789ab", "acme"},
	} {
		res, err := handle(tc.h, tc.bearer)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if res.UsageIdentifierKey != authorizer.UsageKey(tc.org) || len(res.UsageIdentifierKey) < 20 {
			t.Fatalf("%s: usage identifier %q, want %q", tc.name, res.UsageIdentifierKey, authorizer.UsageKey(tc.org))
		}
		got[tc.org] = res.UsageIdentifierKey
		if id := gw.keys[res.UsageIdentifierKey]; !gw.members["p1/"+id] {
			t.Fatalf("%s: the key is not in the tenants plan: %v", tc.name, gw.members)
		}
	}
	if got["acme"] == got["other"] || len(gw.keys) != 2 || len(gw.members) != 2 {
		t.Fatalf("identifiers %v, %d API keys, %d plan keys: want one per org", got, len(gw.keys), len(gw.members))
	}
	calls := gw.calls
	if _, err := handle(first, "key-bot-0123456789abc"); err != nil || gw.calls != calls {
		t.Fatalf("an enrolled org called API Gateway again (%d calls, %v)", gw.calls-calls, err)
	}
	missing := authorizer.Handler{Keys: keys, Usage: &authorizer.UsagePlan{Client: gw, Plan: "agentmem-prod-tenants"}}
	if _, err := handle(missing, "key-acme-0123456789ab"); err == nil || errors.Is(err, authorizer.ErrUnauthorized) {
		t.Fatalf("an absent plan: %v, want an internal error", err)
	}
}
