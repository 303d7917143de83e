package service

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// WithContextCache keeps up to size composed contexts (BuildContext with
// a MessageID), each for at most ttl, and until the next write in its org
// through this Service (Service.Invalidate for writers beside it). The
// cache is the process's: a deployment of several processes that write
// the same orgs (Lambda) should leave it off or keep ttl short.
func WithContextCache(size int, ttl time.Duration) Option {
	return func(s *Service) {
		if size > 0 && ttl > 0 {
			s.contexts = &contextCache{size: size, ttl: ttl, gens: map[string]uint64{}, entries: map[string]cachedContext{}}
		}
	}
}

// contextCache holds composed contexts by key (contextCache.key), each
// valid while its org's generation is the one it was composed at. A nil
// cache holds nothing.
type contextCache struct {
	size int
	ttl  time.Duration

	mu      sync.Mutex
	gens    map[string]uint64 // per org, bumped by every write
	entries map[string]cachedContext
}

type cachedContext struct {
	org string
	gen uint64
	at  time.Time
	res *ContextResult
}

// key is the cache key of r for c and the org's generation now: r whole
// (its MessageID included) and what c sees (its org, agent and audiences,
// as Bind restricts a read). Empty without a cache or a MessageID.
func (cc *contextCache) key(c memory.Caller, r ContextRequest) (string, uint64, error) {
	if cc == nil || r.MessageID == "" {
		return "", 0, nil
	}
	f, err := c.Bind(memory.Filter{})
	if err != nil {
		return "", 0, err
	}
	b, err := json.Marshal(struct {
		Org     string
		Sees    memory.Filter
		Request ContextRequest
	}{c.OrgID, f, r})
	if err != nil {
		return "", 0, memory.Errorf(memory.EINTERNAL, "context cache: %v", err)
	}
	sum := sha256.Sum256(b)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return c.OrgID + "/" + hex.EncodeToString(sum[:]), cc.gens[c.OrgID], nil
}

// get returns a copy of the context cached under key, marked Cached, if
// it was composed at generation gen less than ttl ago.
func (cc *contextCache) get(key string, gen uint64, now time.Time) *ContextResult {
	if cc == nil || key == "" {
		return nil
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.entries[key]
	if !ok || e.gen != gen || e.gen != cc.gens[e.org] || now.Sub(e.at) > cc.ttl {
		return nil
	}
	out := *e.res
	out.Sections = append([]ContextSection(nil), e.res.Sections...)
	out.Cached = true
	return &out
}

// put caches res under key, unless a write came since generation gen.
// A full cache first drops what is stale, then, if still full, everything.
func (cc *contextCache) put(org, key string, gen uint64, res *ContextResult, now time.Time) {
	if cc == nil || key == "" {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.gens[org] != gen {
		return
	}
	if len(cc.entries) >= cc.size {
		for k, e := range cc.entries {
			if e.gen != cc.gens[e.org] || now.Sub(e.at) > cc.ttl {
				delete(cc.entries, k)
			}
		}
		if len(cc.entries) >= cc.size {
			clear(cc.entries)
		}
	}
	cc.entries[key] = cachedContext{org: org, gen: gen, at: now, res: res}
}

// invalidate bumps org's generation: every context cached for it is stale.
func (cc *contextCache) invalidate(org string) {
	if cc == nil {
		return
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.gens[org]++
}

// Invalidate marks every composed context cached for org stale: the
// service calls it on each of its writes; a writer beside the service
// (the workstreams' appends, the ingest pipeline) calls it on its own.
// A nil Service holds nothing to invalidate.
func (s *Service) Invalidate(org string) {
	if s != nil {
		s.contexts.invalidate(org)
	}
}
