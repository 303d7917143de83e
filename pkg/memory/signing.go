package memory

import "context"

// SigningKey is a secret that signs end-user tokens, named by ID (the
// token header's kid).
type SigningKey struct {
	ID     string
	Secret []byte
}

// SigningKeys keeps the secrets that sign end-user tokens: the port that
// memoryd (over its store) and the AWS Lambdas (over Secrets Manager)
// share, so that they share the verifier. A key never changes once made,
// so verifiers may cache it; rotating makes a new current key and keeps
// the old ones until the tokens they signed have expired.
type SigningKeys interface {
	// Current returns the key new tokens are signed with, creating it on
	// first use where the keeper can. Errors mean the keeper failed.
	Current(ctx context.Context) (SigningKey, error)
	// Lookup returns the key named id; ENOTFOUND if there is none. Other
	// errors mean the keeper failed.
	Lookup(ctx context.Context, id string) (SigningKey, error)
}
