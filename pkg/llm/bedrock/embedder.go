package bedrock

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
)

// Model ids supported by the Embedder.
const (
	TitanEmbedV2     = "amazon.titan-embed-text-v2:0"
	CohereEmbedEnV3  = "cohere.embed-english-v3"
	CohereEmbedMulti = "cohere.embed-multilingual-v3"
)

// Embedder embeds with a Bedrock model. It is safe for concurrent use.
type Embedder struct {
	c          *bedrockruntime.Client
	model      string
	dims       int
	cohere     bool
	sem        chan struct{}
	cache      *lru
	maxChars   int
	tokensUsed sync.Mutex
	tokens     int64
}

var _ memory.Embedder = (*Embedder)(nil)

// EmbedderOptions configures an Embedder.
type EmbedderOptions struct {
	// Model is TitanEmbedV2 (default) or a Cohere Embed v3 model id.
	Model string
	// Dimensions for Titan V2: 256, 512 or 1024 (default 1024). Cohere v3
	// is always 1024.
	Dimensions int
	// Concurrency bounds the calls in flight (default 8).
	Concurrency int
	// CacheSize is how many embeddings are kept, keyed by model, purpose and
	// text hash (default 10,000; negative disables).
	CacheSize int
}

// Batch and input limits of the models.
const (
	cohereBatch    = 96     // texts per Cohere call
	cohereMaxChars = 2048   // Cohere v3 truncates beyond 512 tokens; send at most this
	titanMaxChars  = 50_000 // Titan V2 accepts 8,192 tokens, about 50k characters
)

// NewEmbedder returns an Embedder over client c.
func NewEmbedder(c *bedrockruntime.Client, o EmbedderOptions) (*Embedder, error) {
	if o.Model == "" {
		o.Model = TitanEmbedV2
	}
	e := &Embedder{c: c, model: o.Model}
	switch {
	case o.Model == TitanEmbedV2:
		switch o.Dimensions {
		case 0:
			e.dims = 1024
		case 256, 512, 1024:
			e.dims = o.Dimensions
		default:
			return nil, fmt.Errorf("bedrock: Titan V2 dimensions must be 256, 512 or 1024, not %d", o.Dimensions)
		}
		e.maxChars = titanMaxChars
	case strings.HasPrefix(o.Model, "cohere.embed-") && strings.HasSuffix(o.Model, "-v3"):
		if o.Dimensions != 0 && o.Dimensions != 1024 {
			return nil, fmt.Errorf("bedrock: Cohere Embed v3 has 1024 dimensions, not %d", o.Dimensions)
		}
		e.dims, e.cohere, e.maxChars = 1024, true, cohereMaxChars
	default:
		return nil, fmt.Errorf("bedrock: embedding model %q is not supported (%s, %s, %s)", o.Model, TitanEmbedV2, CohereEmbedEnV3, CohereEmbedMulti)
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 8
	}
	e.sem = make(chan struct{}, o.Concurrency)
	if o.CacheSize == 0 {
		o.CacheSize = 10_000
	}
	if o.CacheSize > 0 {
		e.cache = newLRU(o.CacheSize)
	}
	return e, nil
}

// Dimensions implements memory.Embedder.
func (e *Embedder) Dimensions() int { return e.dims }

// Model implements memory.Embedder.
func (e *Embedder) Model() string { return fmt.Sprintf("bedrock:%s:%d", e.model, e.dims) }

// InputTokens returns the input tokens Bedrock reported so far (Titan).
func (e *Embedder) InputTokens() int64 {
	e.tokensUsed.Lock()
	defer e.tokensUsed.Unlock()
	return e.tokens
}

func (e *Embedder) cacheKey(text string, p memory.Purpose) string {
	sum := sha256.Sum256([]byte(text))
	return fmt.Sprintf("%s|%d|%x", e.model, p, sum)
}

// Embed implements memory.Embedder: cached texts are served from the cache,
// the rest in concurrent calls (one text per Titan call, 96 per Cohere
// call). Vectors are unit length.
func (e *Embedder) Embed(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []int
	for i, t := range texts {
		if e.cache != nil {
			if v, ok := e.cache.get(e.cacheKey(t, p)); ok {
				out[i] = v
				continue
			}
		}
		missing = append(missing, i)
	}
	var groups [][]int
	if e.cohere {
		for start := 0; start < len(missing); start += cohereBatch {
			groups = append(groups, missing[start:min(len(missing), start+cohereBatch)])
		}
	} else {
		for _, i := range missing {
			groups = append(groups, []int{i})
		}
	}
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	for g, idx := range groups {
		wg.Add(1)
		go func(g int, idx []int) {
			defer wg.Done()
			select {
			case e.sem <- struct{}{}:
			case <-ctx.Done():
				errs[g] = ctx.Err()
				return
			}
			defer func() { <-e.sem }()
			batch := make([]string, len(idx))
			for j, i := range idx {
				batch[j] = truncate(texts[i], e.maxChars)
			}
			vecs, err := e.call(ctx, batch, p)
			if err != nil {
				errs[g] = err
				return
			}
			for j, i := range idx {
				out[i] = vecs[j]
				if e.cache != nil {
					e.cache.put(e.cacheKey(texts[i], p), vecs[j])
				}
			}
		}(g, idx)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// truncate cuts s to at most n bytes on a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Request and response bodies, as documented for each model.
type titanRequest struct {
	InputText  string `json:"inputText"`
	Dimensions int    `json:"dimensions"`
	Normalize  bool   `json:"normalize"`
}

type titanResponse struct {
	Embedding           []float32 `json:"embedding"`
	InputTextTokenCount int64     `json:"inputTextTokenCount"`
}

type cohereRequest struct {
	Texts     []string `json:"texts"`
	InputType string   `json:"input_type"`
	Truncate  string   `json:"truncate"`
}

type cohereResponse struct {
	ID           string      `json:"id"`
	Embeddings   [][]float32 `json:"embeddings"`
	ResponseType string      `json:"response_type"`
}

func (e *Embedder) call(ctx context.Context, texts []string, p memory.Purpose) ([][]float32, error) {
	var body any
	if e.cohere {
		it := "search_document"
		if p == memory.PurposeQuery {
			it = "search_query"
		}
		body = cohereRequest{Texts: texts, InputType: it, Truncate: "END"}
	} else {
		body = titanRequest{InputText: texts[0], Dimensions: e.dims, Normalize: true}
	}
	js, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("bedrock: embed with %s: %w", e.model, err)
	}
	res, err := e.c.InvokeModel(ctx, &bedrockruntime.InvokeModelInput{
		ModelId: aws.String(e.model), Body: js,
		ContentType: aws.String("application/json"), Accept: aws.String("application/json"),
	})
	if err != nil {
		return nil, fmt.Errorf("bedrock: embed with %s: %w", e.model, err)
	}
	var vecs [][]float32
	if e.cohere {
		var r cohereResponse
		if err := json.Unmarshal(res.Body, &r); err != nil {
			return nil, fmt.Errorf("bedrock: %s returned a malformed response: %w", e.model, err)
		}
		vecs = r.Embeddings
	} else {
		var r titanResponse
		if err := json.Unmarshal(res.Body, &r); err != nil {
			return nil, fmt.Errorf("bedrock: %s returned a malformed response: %w", e.model, err)
		}
		vecs = [][]float32{r.Embedding}
		e.tokensUsed.Lock()
		e.tokens += r.InputTextTokenCount
		e.tokensUsed.Unlock()
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("bedrock: %s returned %d embeddings for %d texts", e.model, len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != e.dims {
			return nil, fmt.Errorf("bedrock: %s returned an embedding of %d dimensions, expected %d", e.model, len(v), e.dims)
		}
		memory.Normalize(vecs[i]) // Cohere's are not unit length; Titan's are already
	}
	return vecs, nil
}

// lru is a fixed-size least-recently-used cache of vectors.
type lru struct {
	mu    sync.Mutex
	size  int
	order *list.List
	items map[string]*list.Element
}

type lruEntry struct {
	key string
	vec []float32
}

func newLRU(size int) *lru {
	return &lru{size: size, order: list.New(), items: map[string]*list.Element{}}
}

func (c *lru) get(k string) ([]float32, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*lruEntry).vec, true
	}
	return nil, false
}

func (c *lru) put(k string, v []float32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		el.Value.(*lruEntry).vec = v
		c.order.MoveToFront(el)
		return
	}
	c.items[k] = c.order.PushFront(&lruEntry{k, v})
	if c.order.Len() > c.size {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.items, last.Value.(*lruEntry).key)
	}
}
