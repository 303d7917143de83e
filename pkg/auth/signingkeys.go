package auth

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// SystemOrg is the org under which the service keeps its own records (the
// token signing keys). It is not a valid org name (memory.ValidName), so no
// caller is ever bound to it.
const SystemOrg = "@system"

// SigningKeyKind is the record kind of the token signing keys.
const SigningKeyKind = "signing-key"

// currentTTL is how long RecordKeys trusts the current key it read before
// reading again, so that a rotation by another process is picked up.
const currentTTL = time.Minute

// RecordKeys is SigningKeys over a memory.RecordStore (memoryd's store):
// each key a record of SigningKeyKind under SystemOrg, named by its id.
// The newest key is current; the first Current on an empty store creates
// one. Keys are cached once read (they never change).
type RecordKeys struct {
	records memory.RecordStore
	now     func() time.Time

	mu      sync.Mutex
	byID    map[string]SigningKey
	current SigningKey
	readAt  time.Time
}

// signingRecord is a signing key's record value.
type signingRecord struct {
	Secret    []byte    `json:"secret"`
	CreatedAt time.Time `json:"createdAt"`
}

// NewRecordKeys returns the signing keys kept in rs.
func NewRecordKeys(rs memory.RecordStore) *RecordKeys {
	return &RecordKeys{records: rs, now: time.Now, byID: map[string]SigningKey{}}
}

// Current implements SigningKeys.
func (r *RecordKeys) Current(ctx context.Context) (SigningKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.current.ID != "" && r.now().Sub(r.readAt) < currentTTL {
		return r.current, nil
	}
	k, err := r.newest(ctx)
	if err != nil {
		return SigningKey{}, err
	}
	if k.ID == "" {
		if k, err = r.create(ctx); err != nil {
			return SigningKey{}, err
		}
	}
	r.current, r.readAt = k, r.now()
	return k, nil
}

// Rotate makes a new current key. The old keys stay, so the tokens they
// signed verify until they expire.
func (r *RecordKeys) Rotate(ctx context.Context) (SigningKey, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k, err := r.create(ctx)
	if err != nil {
		return SigningKey{}, err
	}
	r.current, r.readAt = k, r.now()
	return k, nil
}

// newest reads every key and returns the newest (by creation time, then
// id, so that two processes that both created one agree); none is a zero
// key.
func (r *RecordKeys) newest(ctx context.Context) (SigningKey, error) {
	var best SigningKey
	var bestAt time.Time
	after := ""
	for {
		recs, next, err := r.records.ListRecords(ctx, SystemOrg, SigningKeyKind, after, 100)
		if err != nil {
			return SigningKey{}, fmt.Errorf("auth: signing keys: %w", err)
		}
		for _, rec := range recs {
			var v signingRecord
			if err := json.Unmarshal(rec.Value, &v); err != nil {
				return SigningKey{}, fmt.Errorf("auth: signing key %q: %w", rec.ID, err)
			}
			k := SigningKey{ID: rec.ID, Secret: v.Secret}
			if validKey(k) != nil {
				continue
			}
			r.byID[k.ID] = k
			if v.CreatedAt.After(bestAt) || (v.CreatedAt.Equal(bestAt) && k.ID > best.ID) {
				best, bestAt = k, v.CreatedAt
			}
		}
		if next == "" {
			return best, nil
		}
		after = next
	}
}

// create stores a new key.
func (r *RecordKeys) create(ctx context.Context) (SigningKey, error) {
	k, err := NewSigningKey()
	if err != nil {
		return SigningKey{}, err
	}
	if _, err := r.records.PutRecord(ctx, SystemOrg, SigningKeyKind, k.ID, signingRecord{Secret: k.Secret, CreatedAt: r.now().UTC()}, 0); err != nil {
		return SigningKey{}, fmt.Errorf("auth: create signing key: %w", err)
	}
	r.byID[k.ID] = k
	return k, nil
}

// Lookup implements SigningKeys.
func (r *RecordKeys) Lookup(ctx context.Context, id string) (SigningKey, error) {
	r.mu.Lock()
	k, ok := r.byID[id]
	r.mu.Unlock()
	if ok {
		return k, nil
	}
	var v signingRecord
	_, err := r.records.GetRecord(ctx, SystemOrg, SigningKeyKind, id, &v)
	if memory.IsNotFound(err) {
		return SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key %q not found", id)
	} else if err != nil {
		return SigningKey{}, fmt.Errorf("auth: signing key %q: %w", id, err)
	}
	k = SigningKey{ID: id, Secret: v.Secret}
	if err := validKey(k); err != nil {
		return SigningKey{}, memory.Errorf(memory.ENOTFOUND, "signing key %q is not usable: %v", id, err)
	}
	r.mu.Lock()
	r.byID[id] = k
	r.mu.Unlock()
	return k, nil
}
