// Package httprerank adapts an HTTP /rerank endpoint to memory.Reranker, in
// the two shapes the ecosystem serves:
//
//   - FlavorCohere, the Cohere/Jina shape that vLLM, Infinity, LiteLLM and
//     TensorRT-LLM also serve: POST {BaseURL}/rerank with
//     {"model", "query", "documents": [...], "top_n"}, answered with
//     {"results": [{"index", "relevance_score"}]}. BaseURL is for example
//     https://api.cohere.com/v2, https://api.jina.ai/v1 or
//     http://localhost:8000/v1 (vLLM).
//   - FlavorTEI, Hugging Face Text Embeddings Inference: POST
//     {BaseURL}/rerank with {"query", "texts": [...], "truncate": true},
//     answered with [{"index", "score"}].
//
// The directory is rerank/http; the package is named httprerank so that it
// does not shadow net/http.
//
// # Limits
//
// A call sends at most Options.MaxDocs documents (default 1,000), the first
// ones (the pipeline passes them in fused order, best first), in requests of
// at most Options.BatchSize documents (default 1,000 for Cohere, whose API
// takes up to 10,000 and recommends at most 1,000; 32 for TEI, the default
// of its --max-client-batch-size, beyond which it answers 413), up to
// Options.Concurrency requests at once. Both shapes score each pair on its
// own, so scores from different requests of one call compare. Each document
// is cut to Options.MaxDocChars characters (default 16,000, about the 4,096
// tokens a cross-encoder reads; the server truncates the rest) and the query
// to Options.MaxQueryChars (default 2,000; Cohere reads at most 2,048 query
// tokens). Empty documents and those beyond MaxDocs are not sent and score
// math.Inf(-1), as do documents the server leaves out of its answer. Answers
// larger than Options.MaxResponseBytes (default 8 MiB; Jina returns the
// documents with the scores) are refused.
//
// # Errors
//
// Rerank returns EINVALID for an empty query. 429 and 5xx answers and
// transport errors are retried up to Options.MaxAttempts times with
// exponential backoff and full jitter, honouring Retry-After when it fits in
// Options.MaxBackoff; then, like 401, 403, 404 and malformed answers (not
// JSON, an index outside the documents sent or answered twice, a result
// without a score, too large), they return EUNAVAILABLE, so the pipeline
// keeps the fused order. 400, 413 and 422 mean the server rejected the
// request the reranker built: a bug or a misconfiguration (a BatchSize above
// the server's limit), returned as EINTERNAL and not retried.
package httprerank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"golang.org/x/sync/errgroup"
)

// Flavor is the request and response shape of the endpoint.
type Flavor string

// The supported shapes.
const (
	FlavorCohere Flavor = "cohere" // Cohere, Jina, vLLM, Infinity, LiteLLM
	FlavorTEI    Flavor = "tei"    // Hugging Face Text Embeddings Inference
)

// Options configures a Reranker.
type Options struct {
	// BaseURL is the endpoint's prefix; requests go to BaseURL + "/rerank".
	// Required, http or https.
	BaseURL string
	// Flavor is FlavorCohere (the default) or FlavorTEI.
	Flavor Flavor
	// Model is sent as "model"; required with FlavorCohere, unused by TEI,
	// which serves one model. It names the reranker (Name).
	Model string
	// APIKey, when set, is sent as "Authorization: Bearer APIKey".
	APIKey string
	// MaxDocs is the most documents scored per call (default 1,000); the
	// rest score math.Inf(-1).
	MaxDocs int
	// BatchSize is the most documents per request (default 1,000 for
	// Cohere, 32 for TEI), at most MaxDocs.
	BatchSize int
	// Concurrency is the most requests of one call in flight (default 4).
	Concurrency int
	// MaxDocChars cuts each document, in characters (default 16,000).
	MaxDocChars int
	// MaxQueryChars cuts the query, in characters (default 2,000).
	MaxQueryChars int
	// Timeout per Rerank call, retries included (default 10 s).
	Timeout time.Duration
	// MaxAttempts per request (default 3), with exponential backoff and
	// full jitter from 100 ms up to MaxBackoff (default 1 s).
	MaxAttempts int
	MaxBackoff  time.Duration
	// MaxResponseBytes caps an answer's body (default 8 MiB).
	MaxResponseBytes int64
	// HTTPClient sends the requests (default a new http.Client; the
	// Timeout bounds each call through its context).
	HTTPClient *http.Client
}

// Reranker scores documents with an HTTP rerank endpoint. It is safe for
// concurrent use.
type Reranker struct {
	o     Options
	url   string
	where string // url without credentials, for errors
}

var _ memory.Reranker = (*Reranker)(nil)

// New returns a Reranker for the endpoint o describes.
func New(o Options) (*Reranker, error) {
	u, err := url.Parse(o.BaseURL)
	switch {
	case o.BaseURL == "":
		return nil, errors.New("http-rerank: Options.BaseURL is required")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("http-rerank: Options.BaseURL %q is not an http(s) URL without query or fragment", o.BaseURL)
	}
	batch := 1000
	switch o.Flavor {
	case "", FlavorCohere:
		o.Flavor = FlavorCohere
		if strings.TrimSpace(o.Model) == "" {
			return nil, errors.New("http-rerank: Options.Model is required with the cohere flavor")
		}
	case FlavorTEI:
		batch = 32
		if o.Model == "" {
			o.Model = "tei"
		}
	default:
		return nil, fmt.Errorf("http-rerank: Options.Flavor %q is not %q or %q", o.Flavor, FlavorCohere, FlavorTEI)
	}
	for _, f := range []struct {
		name     string
		v        *int
		def, max int
	}{
		{"MaxDocs", &o.MaxDocs, 1000, 10000},
		{"BatchSize", &o.BatchSize, batch, 10000},
		{"Concurrency", &o.Concurrency, 4, 64},
		{"MaxDocChars", &o.MaxDocChars, 16000, 1 << 20},
		{"MaxQueryChars", &o.MaxQueryChars, 2000, 1 << 20},
		{"MaxAttempts", &o.MaxAttempts, 3, 10},
	} {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < 0 || *f.v > f.max:
			return nil, fmt.Errorf("http-rerank: Options.%s %d is outside 1..%d", f.name, *f.v, f.max)
		}
	}
	o.BatchSize = min(o.BatchSize, o.MaxDocs)
	for _, f := range []struct {
		name string
		v    *time.Duration
		def  time.Duration
	}{{"Timeout", &o.Timeout, 10 * time.Second}, {"MaxBackoff", &o.MaxBackoff, time.Second}} {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < 0:
			return nil, fmt.Errorf("http-rerank: Options.%s %s is negative", f.name, *f.v)
		}
	}
	switch {
	case o.MaxResponseBytes == 0:
		o.MaxResponseBytes = 8 << 20
	case o.MaxResponseBytes < 0:
		return nil, fmt.Errorf("http-rerank: Options.MaxResponseBytes %d is negative", o.MaxResponseBytes)
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/rerank"
	u.RawPath = ""
	return &Reranker{o: o, url: u.String(), where: u.Redacted()}, nil
}

// Name returns "http-rerank:" and the model ("tei" for a TEI endpoint
// without one).
func (r *Reranker) Name() string { return "http-rerank:" + r.o.Model }

// Rerank scores docs against query: one score per document in docs' order,
// the server's relevance score, math.Inf(-1) for documents not sent or not
// answered.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if strings.TrimSpace(query) == "" {
		return nil, memory.Errorf(memory.EINVALID, "rerank: the query is empty")
	}
	scores := make([]float64, len(docs))
	for i := range scores {
		scores[i] = math.Inf(-1)
	}
	var texts []string
	var orig []int // orig[k] is the index in docs of texts[k]
	for i, d := range docs {
		if len(texts) == r.o.MaxDocs {
			break
		}
		if strings.TrimSpace(d) == "" {
			continue
		}
		texts = append(texts, cut(d, r.o.MaxDocChars))
		orig = append(orig, i)
	}
	if len(texts) == 0 {
		return scores, nil
	}
	query = cut(query, r.o.MaxQueryChars)
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.o.Concurrency)
	for start := 0; start < len(texts); start += r.o.BatchSize {
		batch := texts[start:min(start+r.o.BatchSize, len(texts))]
		g.Go(func() error {
			got, err := r.batch(gctx, query, batch)
			if err != nil {
				return err
			}
			for k, s := range got { // disjoint ranges of scores per batch
				if !math.IsInf(s, -1) {
					scores[orig[start+k]] = s
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return scores, nil
}

// result is one scored document of either shape.
type result struct {
	Index          *int     `json:"index"`
	RelevanceScore *float64 `json:"relevance_score"` // Cohere, Jina
	Score          *float64 `json:"score"`           // TEI
}

// batch scores one request's documents, math.Inf(-1) for those not answered.
func (r *Reranker) batch(ctx context.Context, query string, texts []string) ([]float64, error) {
	var req any
	if r.o.Flavor == FlavorTEI {
		req = struct {
			Query    string   `json:"query"`
			Texts    []string `json:"texts"`
			Truncate bool     `json:"truncate"`
		}{query, texts, true}
	} else {
		req = struct {
			Model     string   `json:"model"`
			Query     string   `json:"query"`
			Documents []string `json:"documents"`
			TopN      int      `json:"top_n"`
		}{r.o.Model, query, texts, len(texts)}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, r.fail(memory.EINTERNAL, "encode the request", err)
	}
	raw, err := r.post(ctx, body)
	if err != nil {
		return nil, err
	}
	var results []result
	if r.o.Flavor == FlavorTEI {
		err = json.Unmarshal(raw, &results)
	} else {
		var out struct {
			Results *[]result `json:"results"`
		}
		if err = json.Unmarshal(raw, &out); err == nil && out.Results == nil {
			err = errors.New(`no "results"`)
		}
		if out.Results != nil {
			results = *out.Results
		}
	}
	if err != nil {
		return nil, r.malformed(fmt.Sprintf("the body %.120q is not the %s answer: %v", raw, r.o.Flavor, err))
	}
	scores := make([]float64, len(texts))
	for i := range scores {
		scores[i] = math.Inf(-1)
	}
	seen := make([]bool, len(texts))
	for _, res := range results {
		s := res.RelevanceScore
		if r.o.Flavor == FlavorTEI {
			s = res.Score
		}
		switch {
		case res.Index == nil || s == nil:
			return nil, r.malformed("a result without an index or a score")
		case *res.Index < 0 || *res.Index >= len(texts):
			return nil, r.malformed(fmt.Sprintf("index %d outside the %d documents sent", *res.Index, len(texts)))
		case seen[*res.Index]:
			return nil, r.malformed(fmt.Sprintf("index %d answered twice", *res.Index))
		}
		seen[*res.Index] = true
		scores[*res.Index] = *s
	}
	return scores, nil
}

// post sends body, retrying throttling, 5xx and transport errors, and
// returns the answer's body.
func (r *Reranker) post(ctx context.Context, body []byte) ([]byte, error) {
	var last error
	for attempt := 1; ; attempt++ {
		raw, retryAfter, err := r.once(ctx, body)
		if err == nil {
			return raw, nil
		}
		var pe *permanent
		if errors.As(err, &pe) {
			return nil, pe.err
		}
		last = err
		if attempt == r.o.MaxAttempts || ctx.Err() != nil {
			break
		}
		wait := backoff(attempt, r.o.MaxBackoff)
		if retryAfter > 0 {
			if retryAfter > r.o.MaxBackoff {
				break // the server asks for longer than a query can wait
			}
			wait = retryAfter
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, r.fail(memory.EUNAVAILABLE, fmt.Sprintf("after %d attempts", attempt), errors.Join(last, ctx.Err()))
		case <-t.C:
		}
	}
	return nil, r.fail(memory.EUNAVAILABLE, "gave up", last)
}

// permanent marks an error not worth retrying.
type permanent struct{ err error }

func (p *permanent) Error() string { return p.err.Error() }

// once sends one request. Errors are retryable unless *permanent.
func (r *Reranker) once(ctx context.Context, body []byte) ([]byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return nil, 0, &permanent{r.fail(memory.EINTERNAL, "build the request", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if r.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.o.APIKey)
	}
	resp, err := r.o.HTTPClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, r.o.MaxResponseBytes+1))
	if err != nil {
		return nil, 0, err
	}
	if int64(len(raw)) > r.o.MaxResponseBytes {
		return nil, 0, &permanent{r.malformed(fmt.Sprintf("an answer larger than %d bytes", r.o.MaxResponseBytes))}
	}
	status := fmt.Errorf("status %d: %.200s", resp.StatusCode, bytes.TrimSpace(raw))
	switch {
	case resp.StatusCode == http.StatusOK:
		return raw, 0, nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, retryAfter(resp.Header.Get("Retry-After")), status
	case resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusRequestEntityTooLarge ||
		resp.StatusCode == http.StatusUnprocessableEntity:
		return nil, 0, &permanent{r.fail(memory.EINTERNAL, "the request was rejected", status)}
	default:
		return nil, 0, &permanent{r.fail(memory.EUNAVAILABLE, "refused", status)}
	}
}

// retryAfter reads a Retry-After header given in seconds; 0 when absent or
// given as a date.
func retryAfter(h string) time.Duration {
	s, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || s < 0 {
		return 0
	}
	return time.Duration(s) * time.Second
}

// backoff is exponential from 100 ms with full jitter, at most max.
func backoff(attempt int, max time.Duration) time.Duration {
	d := min(100*time.Millisecond<<min(attempt-1, 20), max)
	return time.Duration(rand.Int64N(int64(d) + 1))
}

func (r *Reranker) fail(code, what string, err error) error {
	msg := "the reranker %s is unavailable"
	if code == memory.EINTERNAL {
		msg = "the reranker %s rejected the request"
	}
	return fmt.Errorf("http-rerank: rerank with %s at %s: %w: %s: %w", r.o.Model, r.where, memory.Errorf(code, msg, r.Name()), what, err)
}

func (r *Reranker) malformed(what string) error {
	return fmt.Errorf("http-rerank: rerank with %s at %s: %w: malformed response: %s", r.o.Model, r.where,
		memory.Errorf(memory.EUNAVAILABLE, "the reranker %s answered in a malformed way", r.Name()), what)
}

// cut returns s cut to max characters at a rune boundary.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}
