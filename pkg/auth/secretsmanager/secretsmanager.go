// Package secretsmanager keeps the signing keys of end-user tokens in AWS
// Secrets Manager: memory.SigningKeys over one secret, named by the
// configuration (TOKEN_SECRET_NAME), whose versions are the keys. The
// version labelled AWSCURRENT signs new tokens, and a token's kid is the
// version id that signed it, so that rotating the secret (a new version;
// the old one becomes AWSPREVIOUS) keeps the tokens it signed verifying
// until they expire. The API and the authorizer Lambdas share it.
//
// The secret's value is the HMAC secret itself: a SecretString of at least
// 32 bytes (generate 64 random characters), or a SecretBinary.
package secretsmanager

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/awsconf"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	sm "github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"
)

// currentTTL is how long Keys trusts the current version it read: a
// rotation reaches every warm Lambda within it.
const currentTTL = 5 * time.Minute

// missTTL is how long an unknown version id is remembered as unknown, and
// maxMisses how many are, so that tokens with made-up kids do not each
// cost a Secrets Manager call.
const (
	missTTL   = time.Minute
	maxMisses = 1024
)

// API is the part of the Secrets Manager client Keys uses.
type API interface {
	GetSecretValue(ctx context.Context, in *sm.GetSecretValueInput, opts ...func(*sm.Options)) (*sm.GetSecretValueOutput, error)
}

// Keys is memory.SigningKeys over the versions of one secret. Versions never
// change, so each is read once; the current one is read again after
// currentTTL.
type Keys struct {
	api  API
	name string
	now  func() time.Time

	mu      sync.Mutex
	byID    map[string]memory.SigningKey
	misses  map[string]time.Time
	current memory.SigningKey
	readAt  time.Time
}

var _ memory.SigningKeys = (*Keys)(nil)

// New returns the signing keys of the secret name (a name or an ARN).
func New(api API, name string) *Keys {
	return &Keys{api: api, name: name, now: time.Now, byID: map[string]memory.SigningKey{}, misses: map[string]time.Time{}}
}

// ClientOptions configures NewClient.
type ClientOptions struct {
	// Endpoint overrides the service endpoint (LocalStack, tests); empty
	// uses AWS's.
	Endpoint string
	// Region defaults to the environment's, or us-east-1 with an endpoint.
	Region string
	// Static credentials, for local servers; empty uses the default chain.
	AccessKey, SecretKey string
}

// NewClient returns a Secrets Manager client.
func NewClient(ctx context.Context, o ClientOptions) (*sm.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey, SecretKey: o.SecretKey})
	if err != nil {
		return nil, fmt.Errorf("secretsmanager: client: %w", err)
	}
	return sm.NewFromConfig(cfg, func(so *sm.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}

// Current implements memory.SigningKeys: the AWSCURRENT version.
func (k *Keys) Current(ctx context.Context) (memory.SigningKey, error) {
	k.mu.Lock()
	if k.current.ID != "" && k.now().Sub(k.readAt) < currentTTL {
		defer k.mu.Unlock()
		return k.current, nil
	}
	k.mu.Unlock()
	key, err := k.get(ctx, &sm.GetSecretValueInput{SecretId: aws.String(k.name), VersionStage: aws.String("AWSCURRENT")})
	if err != nil {
		return memory.SigningKey{}, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.current, k.readAt = key, k.now()
	k.byID[key.ID] = key
	return key, nil
}

// Lookup implements memory.SigningKeys: the version id.
func (k *Keys) Lookup(ctx context.Context, id string) (memory.SigningKey, error) {
	if !versionID(id) {
		return memory.SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key %q not found", id)
	}
	k.mu.Lock()
	key, ok := k.byID[id]
	missed, miss := k.misses[id]
	k.mu.Unlock()
	if ok {
		return key, nil
	}
	if miss && k.now().Sub(missed) < missTTL {
		return memory.SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key %q not found", id)
	}
	key, err := k.get(ctx, &sm.GetSecretValueInput{SecretId: aws.String(k.name), VersionId: aws.String(id)})
	k.mu.Lock()
	defer k.mu.Unlock()
	if memory.IsNotFound(err) {
		if len(k.misses) >= maxMisses {
			clear(k.misses)
		}
		k.misses[id] = k.now()
		return memory.SigningKey{}, err
	} else if err != nil {
		return memory.SigningKey{}, err
	}
	k.byID[id] = key
	return key, nil
}

// versionID reports whether id has the shape of a Secrets Manager version
// id (32 to 64 letters, digits and hyphens), which every kid of a token
// this package signed has.
func versionID(id string) bool {
	if len(id) < 32 || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// get reads one version of the secret: ENOTFOUND when the secret or the
// version does not exist.
func (k *Keys) get(ctx context.Context, in *sm.GetSecretValueInput) (memory.SigningKey, error) {
	out, err := k.api.GetSecretValue(ctx, in)
	var nf *types.ResourceNotFoundException
	if errors.As(err, &nf) {
		return memory.SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key: %s", nf.ErrorMessage())
	} else if err != nil {
		return memory.SigningKey{}, fmt.Errorf("secretsmanager: get %s: %w", k.name, err)
	}
	key := memory.SigningKey{ID: aws.ToString(out.VersionId), Secret: out.SecretBinary}
	if out.SecretString != nil {
		key.Secret = []byte(*out.SecretString)
	}
	if key.ID == "" || len(key.Secret) < 32 {
		return memory.SigningKey{}, fmt.Errorf("secretsmanager: %s: the secret must hold at least 32 bytes (and have a version id)", k.name)
	}
	return key, nil
}

// OpenKeys returns the signing keys kept in the secret name, for a
// Lambda's composition root; nil (no tokens) when name is empty.
func OpenKeys(ctx context.Context, name string, o ClientOptions) (memory.SigningKeys, error) {
	if name == "" {
		return nil, nil
	}
	c, err := NewClient(ctx, o)
	if err != nil {
		return nil, err
	}
	return New(c, name), nil
}
