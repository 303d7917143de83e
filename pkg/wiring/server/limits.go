package server

import (
	"context"
	"crypto/sha256"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"golang.org/x/time/rate"
)

// Limiter is the local server's abuse limits in front of the API: per
// key, a token-bucket request rate (golang.org/x/time/rate) and a cap on
// requests in flight, both answered 429 with Retry-After; and a deadline
// on every request's context. A key is identified by the SHA-256 of its
// Authorization header, before authentication, so that floods of a bad
// key are limited too; requests without one share their client address's
// limits. Per-key state idle for 10 minutes is dropped.
//
// Above the keys, once a request is authenticated, every org has a
// bucket of its own (OrgRate, OrgBurst) that all its keys draw from
// (Admit, the API's admission): an org that mints keys does not multiply
// its rate.
type Limiter struct {
	next   http.Handler
	limits config.Limits
	log    *slog.Logger
	now    func() time.Time

	mu       sync.Mutex
	keys     map[[32]byte]*keyState
	orgs     map[string]*orgState
	sweep    time.Time
	orgSweep time.Time
}

type orgState struct {
	rate *rate.Limiter
	seen time.Time
}

type keyState struct {
	rate     *rate.Limiter
	inFlight int
	seen     time.Time
}

// idleAfter is how long a key's limiter state is kept unused.
const idleAfter = 10 * time.Minute

// Limit wraps next in the limits of l.
func Limit(next http.Handler, l config.Limits, log *slog.Logger) *Limiter {
	if log == nil {
		log = slog.Default()
	}
	return &Limiter{next: next, limits: l, log: log, now: time.Now, keys: map[[32]byte]*keyState{}, orgs: map[string]*orgState{}}
}

// Wrap makes next the handler l limits, for a limiter made before the
// handler it admits to (Limit(nil, ...)).
func (l *Limiter) Wrap(next http.Handler) *Limiter {
	l.next = next
	return l
}

// Admit takes a token from c's org's bucket, or answers ERATELIMIT with
// how long to wait (httpapi.Admission).
func (l *Limiter) Admit(_ context.Context, c memory.Caller) (time.Duration, error) {
	if l.limits.OrgRate <= 0 {
		return 0, nil
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.orgSweep) > idleAfter {
		for org, st := range l.orgs {
			if now.Sub(st.seen) > idleAfter {
				delete(l.orgs, org)
			}
		}
		l.orgSweep = now
	}
	st := l.orgs[c.OrgID]
	if st == nil {
		st = &orgState{rate: rate.NewLimiter(rate.Limit(l.limits.OrgRate), max(l.limits.OrgBurst, 1))}
		l.orgs[c.OrgID] = st
	}
	st.seen = now
	res := st.rate.ReserveN(now, 1)
	if d := res.DelayFrom(now); d > 0 {
		res.CancelAt(now)
		return d, memory.Errorf(memory.ERATELIMIT, "this org's keys together send more than %g requests per second (burst %d); retry after the Retry-After seconds",
			l.limits.OrgRate, l.limits.OrgBurst)
	}
	return 0, nil
}

// ServeHTTP implements http.Handler.
func (l *Limiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id := l.identity(r)
	if wait, why := l.acquire(id); why != "" {
		secs := int(math.Ceil(wait.Seconds()))
		if secs < 1 {
			secs = 1
		}
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		writeLimitError(w, r, why)
		return
	}
	defer l.release(id)
	if l.limits.Timeout > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), l.limits.Timeout)
		defer cancel()
		r = r.WithContext(ctx)
	}
	l.next.ServeHTTP(w, r)
}

func (l *Limiter) identity(r *http.Request) [32]byte {
	if h := r.Header.Get("Authorization"); h != "" {
		return sha256.Sum256([]byte("key\x00" + h))
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return sha256.Sum256([]byte("addr\x00" + host))
}

// acquire takes a token and an in-flight slot for id, or says why not
// and how long to wait.
func (l *Limiter) acquire(id [32]byte) (time.Duration, string) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.sweep) > idleAfter {
		for k, st := range l.keys {
			if st.inFlight == 0 && now.Sub(st.seen) > idleAfter {
				delete(l.keys, k)
			}
		}
		l.sweep = now
	}
	st := l.keys[id]
	if st == nil {
		st = &keyState{}
		if l.limits.Rate > 0 {
			st.rate = rate.NewLimiter(rate.Limit(l.limits.Rate), max(l.limits.Burst, 1))
		}
		l.keys[id] = st
	}
	st.seen = now
	if l.limits.Concurrency > 0 && st.inFlight >= l.limits.Concurrency {
		return time.Second, fmt.Sprintf("this key has %d requests in flight, its limit; retry when one has answered", l.limits.Concurrency)
	}
	if st.rate != nil {
		res := st.rate.ReserveN(now, 1)
		if d := res.DelayFrom(now); d > 0 {
			res.CancelAt(now)
			return d, fmt.Sprintf("this key sends more than %g requests per second (burst %d)", l.limits.Rate, l.limits.Burst)
		}
	}
	st.inFlight++
	return 0, ""
}

func (l *Limiter) release(id [32]byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if st := l.keys[id]; st != nil && st.inFlight > 0 {
		st.inFlight--
	}
}

func writeLimitError(w http.ResponseWriter, r *http.Request, msg string) {
	contract.WriteProblem(w, contract.NewProblem(memory.ERATELIMIT, msg, r.URL.Path, r.Header.Get("X-Request-Id")))
}

// HTTPServer returns the local server of handler on addr with the
// timeouts of l: reading a request's headers (10 s) and whole body
// (ReadTimeout), the whole exchange (WriteTimeout) and idle keep-alives
// (IdleTimeout).
func HTTPServer(addr string, handler http.Handler, l config.Limits) *http.Server {
	return &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: l.ReadTimeout, WriteTimeout: l.WriteTimeout, IdleTimeout: l.IdleTimeout}
}

// Authenticator returns the keys a server accepts: the static keys of
// API_KEYS (full grants of their binding) or, without them on the
// embedded backend, the development key of the data directory (devKey is
// then set, and created tells whether this start made it, for the caller
// to show it once); and in either case the keys of the store's key table
// (created with POST /v1/admin/keys or memctl keys); and, when the store
// keeps the signing keys, the end-user tokens minted by POST /v1/tokens
// (told apart from keys by their shape, auth.IsToken).
func Authenticator(cfg config.Config, b *Backend) (a auth.Authenticator, devKey string, created bool, err error) {
	var chain auth.Chain
	switch {
	case cfg.Server.APIKeys != "":
		km, err := auth.ParseKeys(cfg.Server.APIKeys)
		if err != nil {
			return nil, "", false, err
		}
		chain = append(chain, km)
	case b.DynamoDB == nil:
		if devKey, created, err = auth.OpenDevKey(cfg.DataDir); err != nil {
			return nil, "", false, fmt.Errorf("dev key: %w", err)
		}
		km, err := auth.ParseKeys(devKey + "=" + auth.DevOrg)
		if err != nil {
			return nil, "", false, err
		}
		chain = append(chain, km)
	}
	if b.Keys != nil {
		chain = append(chain, auth.StoreKeys{Store: b.Keys})
	}
	return auth.WithTokens(chain, b.Tokens), devKey, created, nil
}

// Quotas returns the quota enforcement of cfg over b's usage counts and
// per-org override records.
func Quotas(cfg config.Quotas, b *Backend) *httpapi.Quotas {
	rs, _ := b.Store.(memory.RecordStore)
	return api.Quotas(cfg, b.Usage, rs)
}
