package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// QuotaRecordKind and QuotaRecordID name an org's own quota record in the
// store's records (memory.RecordStore), which overrides the defaults:
// a JSON memory.OrgUsage of limits, 0 meaning the default.
const (
	QuotaRecordKind = "QUOTA"
	QuotaRecordID   = "limits"
)

// Quotas enforces per-org quotas on memories, bytes of content text and
// documents. A write reserves what it adds before it runs and releases it
// after, so concurrent writes of one org in this process cannot together
// pass a limit: the check reads the stored usage and adds the reservations
// in flight, under one lock. Across processes (several Lambdas) two writes
// may each pass the check, so a limit can be exceeded by the writes in
// flight at once.
type Quotas struct {
	// Limits are the defaults; 0 means unlimited.
	Limits memory.OrgUsage
	// Usage counts what an org stores.
	Usage memory.UsageCounter
	// Overrides, when set, hold each org's own limits (QuotaRecordKind).
	Overrides memory.RecordStore
	// UsageTTL reuses a usage count this long (0: count on every write).
	UsageTTL time.Duration

	mu      sync.Mutex
	pending map[string]memory.OrgUsage
	cached  map[string]cachedUsage
}

type cachedUsage struct {
	u  memory.OrgUsage
	at time.Time
}

// WithQuotas enforces q on every write (memories, messages, documents,
// patches) and serves GET /v1/admin/usage.
func WithQuotas(q *Quotas) Option { return func(s *Server) { s.quotas = q } }

// LimitsOf returns org's limits: its override record's non-zero fields
// over the defaults.
func (q *Quotas) LimitsOf(ctx context.Context, org string) (memory.OrgUsage, error) {
	l := q.Limits
	if q.Overrides == nil {
		return l, nil
	}
	var o memory.OrgUsage
	if _, err := q.Overrides.GetRecord(ctx, org, QuotaRecordKind, QuotaRecordID, &o); memory.IsNotFound(err) {
		return l, nil
	} else if err != nil {
		return l, err
	}
	if o.Memories != 0 {
		l.Memories = o.Memories
	}
	if o.Bytes != 0 {
		l.Bytes = o.Bytes
	}
	if o.Documents != 0 {
		l.Documents = o.Documents
	}
	return l, nil
}

// usage returns org's usage, reusing a count younger than UsageTTL. The
// caller holds q.mu.
func (q *Quotas) usage(ctx context.Context, org string) (memory.OrgUsage, error) {
	if c, ok := q.cached[org]; ok && q.UsageTTL > 0 && time.Since(c.at) < q.UsageTTL {
		return c.u, nil
	}
	u, err := q.Usage.Usage(ctx, org)
	if err != nil {
		return u, err
	}
	if q.UsageTTL > 0 {
		if q.cached == nil {
			q.cached = map[string]cachedUsage{}
		}
		q.cached[org] = cachedUsage{u, time.Now()}
	}
	return u, nil
}

// Reserve checks that org can take add on top of what it stores and what
// writes in flight reserved, and reserves it until release is called.
// EQUOTA names the quota, its limit and the usage.
func (q *Quotas) Reserve(ctx context.Context, org string, add memory.OrgUsage) (release func(), err error) {
	limits, err := q.LimitsOf(ctx, org)
	if err != nil {
		return nil, err
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	u, err := q.usage(ctx, org)
	if err != nil {
		return nil, err
	}
	p := q.pending[org]
	for _, d := range []struct {
		name              string
		limit, used, more int64
	}{
		{"memories", limits.Memories, u.Memories + p.Memories, add.Memories},
		{"bytes", limits.Bytes, u.Bytes + p.Bytes, add.Bytes},
		{"documents", limits.Documents, u.Documents + p.Documents, add.Documents},
	} {
		if d.limit > 0 && d.more > 0 && d.used+d.more > d.limit {
			return nil, memory.Errorf(memory.EQUOTA, "quota %s: the org holds %d of its %d and this request adds %d; delete some or ask the operator for a higher quota",
				d.name, d.used, d.limit, d.more)
		}
	}
	if q.pending == nil {
		q.pending = map[string]memory.OrgUsage{}
	}
	q.pending[org] = addUsage(p, add, 1)
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			defer q.mu.Unlock()
			if c, ok := q.cached[org]; ok {
				// What was reserved is now (likely) stored: count it in
				// the reused usage until the next fresh count.
				q.cached[org] = cachedUsage{addUsage(c.u, add, 1), c.at}
			}
			if left := addUsage(q.pending[org], add, -1); left == (memory.OrgUsage{}) {
				delete(q.pending, org)
			} else {
				q.pending[org] = left
			}
		})
	}, nil
}

func addUsage(a, b memory.OrgUsage, sign int64) memory.OrgUsage {
	return memory.OrgUsage{Memories: a.Memories + sign*b.Memories, Bytes: a.Bytes + sign*b.Bytes, Documents: a.Documents + sign*b.Documents}
}

// reserve is Quotas.Reserve for c's org, or nothing without quotas.
func (s *Server) reserve(ctx context.Context, c memory.Caller, add memory.OrgUsage) (func(), error) {
	if s.quotas == nil || add == (memory.OrgUsage{}) {
		return func() {}, nil
	}
	return s.quotas.Reserve(ctx, c.OrgID, add)
}

// contentBytes is the quota's measure of a content: the UTF-8 size of its
// text.
func contentBytes(c memory.Content) int64 { return int64(len(c.Text)) }

// newMemoriesUsage is what creating in adds at most (duplicates add
// nothing, but are reserved like the rest).
func newMemoriesUsage(in []service.NewMemory) memory.OrgUsage {
	u := memory.OrgUsage{Memories: int64(len(in))}
	for _, m := range in {
		u.Bytes += contentBytes(m.Content)
		if m.Type == memory.TypeDocument {
			u.Documents++
		}
	}
	return u
}

// patchUsage is what a patch adds at most: its whole new text.
func patchUsage(p service.Patch) memory.OrgUsage {
	if p.Content == nil {
		return memory.OrgUsage{}
	}
	return memory.OrgUsage{Bytes: contentBytes(*p.Content)}
}

// documentUsage is what posting a document reserves: the document, its
// parent memory and the file's size as a bound of its text before it is
// split (the fragments are counted once stored).
func documentUsage(size int) memory.OrgUsage {
	return memory.OrgUsage{Documents: 1, Memories: 1, Bytes: int64(size)}
}
