package memory

import (
	"context"
	"time"
)

// Idempotency keys let a client retry a POST without doing it twice: the
// first request with a key reserves it, runs, and completes the reservation
// with its response; a retry with the same key and the same request gets
// that response again. Keys are per org and per caller's agent binding,
// and live IdempotencyTTL.

// IdempotencyTTL is how long a completed idempotency key is kept.
const IdempotencyTTL = 24 * time.Hour

// MaxIdempotentResponse is the largest response body kept for a replay;
// a request whose response is larger is not kept (its key is released, so
// a retry runs again). It keeps every record within a DynamoDB item.
const MaxIdempotentResponse = 256 << 10

// MaxIdempotencyKey is the longest Idempotency-Key accepted.
const MaxIdempotencyKey = 255

// IdempotencyRecord is one idempotency key: reserved by a request in
// flight, or completed with its response.
type IdempotencyRecord struct {
	// OrgID, Scope and Key identify it: the caller's org, what its
	// credentials bind it to (IdempotencyScope) and the client's key.
	// Another org, agent or end user never sees it.
	OrgID, Scope, Key string
	// Fingerprint identifies the request (a hash of its method, path and
	// body); a replay must carry the same one.
	Fingerprint string
	// Done is set once the request has completed: Status, Header and Body
	// hold its response.
	Done   bool
	Status int
	// Header holds the response headers worth replaying (Content-Type,
	// Location, ETag).
	Header map[string]string
	Body   []byte
	// LeaseUntil (ms) bounds a reservation that was never completed (its
	// process died): past it, another request may take the key over.
	LeaseUntil int64
	// ExpiresAt (ms) is when the record is forgotten (IdempotencyTTL after
	// the request came).
	ExpiresAt int64
}

// IdempotencyStore keeps idempotency keys. Every method is scoped to one
// org and scope; a record past its ExpiresAt is treated as absent whether
// or not the store has removed it yet.
type IdempotencyStore interface {
	// Reserve claims r's key for a request in flight (r.Done false). If
	// the key has a live record (not expired; and completed, or reserved
	// with a lease not yet past at now), nothing is written and that
	// record is returned; otherwise (nil, nil): the caller holds the key.
	Reserve(ctx context.Context, r IdempotencyRecord, now time.Time) (*IdempotencyRecord, error)
	// Complete stores the response of a reserved key (r.Done true, with
	// Status, Header and Body). ETOOLARGE if Body exceeds
	// MaxIdempotentResponse; ENOTFOUND if the key is not reserved with
	// r.Fingerprint (it expired, or was taken over).
	Complete(ctx context.Context, r IdempotencyRecord) error
	// Release drops a reservation that is not completed, so that a retry
	// runs again (the request failed in a way worth retrying). A completed
	// or absent key is left as it is.
	Release(ctx context.Context, orgID, scope, key, fingerprint string) error
	// Get returns the live record of a key; ENOTFOUND if there is none.
	Get(ctx context.Context, orgID, scope, key string, now time.Time) (*IdempotencyRecord, error)
}

// ValidIdempotencyKey checks a client's Idempotency-Key: 1 to
// MaxIdempotencyKey printable ASCII characters.
func ValidIdempotencyKey(k string) error {
	if k == "" || len(k) > MaxIdempotencyKey {
		return Errorf(EINVALID, "Idempotency-Key: must be 1 to %d characters", MaxIdempotencyKey)
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return Errorf(EINVALID, "Idempotency-Key: only printable ASCII characters are allowed")
		}
	}
	return nil
}

// IdempotencyScope is the Scope of c's idempotency keys: what its
// credentials bind it to, the agent ("" for an org-level key) and, for an
// end user's token, the user, room and world. Two end users of one agent
// never share a key's response, even when their clients derive the same
// key from the same request.
func IdempotencyScope(c Caller) string {
	s := c.AgentID
	if b := c.Binding; b != nil {
		s += "\x00user:" + b.UserID + "\x00room:" + b.RoomID + "\x00world:" + b.WorldID
	}
	return s
}
