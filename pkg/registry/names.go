package registry

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// NamesTTL is how long the entity names read for an org (EntityNames)
// are used before they are read again. Changes made through this
// Registry drop its org's names at once; those made elsewhere (another
// process, another Lambda) are seen within NamesTTL.
const NamesTTL = 30 * time.Second

// MaxResolvedEntities bounds the entities of one org that extraction
// resolves names by: the first ones in id order.
const MaxResolvedEntities = 10 * MaxLimit

// maxCachedOrgs bounds the orgs whose names are kept; past it the cache
// is emptied (every org's names are read again on next use).
const maxCachedOrgs = 1024

var _ memory.EntityDirectory = (*Registry)(nil)

// nameCache keeps each org's entity names for NamesTTL.
type nameCache struct {
	mu   sync.Mutex
	orgs map[string]cachedNames
}

type cachedNames struct {
	names *memory.EntityNames
	at    time.Time
}

func (c *nameCache) get(org string, now time.Time) *memory.EntityNames {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.orgs[org]; ok && now.Sub(e.at) < NamesTTL && !now.Before(e.at) {
		return e.names
	}
	return nil
}

func (c *nameCache) put(org string, n *memory.EntityNames, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.orgs == nil || len(c.orgs) >= maxCachedOrgs {
		c.orgs = map[string]cachedNames{}
	}
	c.orgs[org] = cachedNames{names: n, at: at}
}

func (c *nameCache) drop(org string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.orgs, org)
}

// EntityNames implements memory.EntityDirectory: the names of the org's
// entities (every agent's: Resolve applies the agent rule), at most
// MaxResolvedEntities of them, read from the store at most once per
// NamesTTL per org.
func (r *Registry) EntityNames(ctx context.Context, orgID string) (*memory.EntityNames, error) {
	now := r.now()
	if n := r.names.get(orgID, now); n != nil {
		return n, nil
	}
	var es []*memory.EntityProfile
	after := ""
	for len(es) < MaxResolvedEntities {
		recs, next, err := r.records.ListRecords(ctx, orgID, KindEntity, after, min(MaxLimit, MaxResolvedEntities-len(es)))
		if err != nil {
			return nil, err
		}
		for _, rec := range recs {
			var e memory.EntityProfile
			if err := json.Unmarshal(rec.Value, &e); err != nil {
				return nil, err
			}
			es = append(es, &e)
		}
		if after = next; next == "" {
			break
		}
	}
	n := memory.NewEntityNames(es)
	r.names.put(orgID, n, now)
	return n, nil
}
