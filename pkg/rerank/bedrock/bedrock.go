// Package bedrockrerank adapts the Amazon Bedrock Rerank API
// (aws-sdk-go-v2 bedrockagentruntime, POST /rerank) to memory.Reranker, for
// the reranker models Amazon Rerank 1.0 (amazon.rerank-v1:0) and Cohere
// Rerank 3.5 (cohere.rerank-v3-5:0).
//
// The directory is rerank/bedrock; the package is named bedrockrerank so
// that it can be imported beside llm/bedrock without an alias.
//
// # Limits
//
// The API takes one query and 1 to 1,000 inline sources per call
// (MaxSources), each text 1 to 32,000 characters long (MaxTextChars,
// counted in UTF-16 code units as the service counts them), and returns up
// to numberOfResults (1 to 1,000) results. The reranker sends at most
// Options.MaxDocs documents per call, the first ones (the pipeline passes
// them in fused order, best first); the others, and empty documents, are
// not sent and score math.Inf(-1). Longer documents and queries are cut at
// a rune boundary to Options.MaxDocChars and Options.MaxQueryChars. The
// reranker models are regional (Bedrock lists where each is offered);
// the client's region must be one of them.
//
// # Errors
//
// Rerank returns EINVALID for an empty query, EUNAVAILABLE when Bedrock
// cannot be reached, keeps throttling past the retryer's attempts, refuses
// access, or answers in a malformed way (bad JSON, an index outside the
// sources sent, a result without a score, an index twice), and EINTERNAL
// for a ValidationException: the reranker enforces the documented limits,
// so a request Bedrock rejects is a bug or a misconfiguration (a model that
// is not offered in the region), which must be seen rather than hidden by
// the fallback to the fused order. ValidationException is not retried.
package bedrockrerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/awsconf"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockagentruntime/types"
	"github.com/aws/smithy-go"
)

// The reranker models of the Bedrock Rerank API.
const (
	AmazonRerankV1  = "amazon.rerank-v1:0"
	CohereRerankV35 = "cohere.rerank-v3-5:0"
)

// Documented limits of the Rerank API.
const (
	// MaxSources is the most sources one Rerank call takes.
	MaxSources = 1000
	// MaxTextChars is the longest text of a query or a source, in UTF-16
	// code units.
	MaxTextChars = 32000
	// maxPages bounds how many nextToken pages one call follows.
	maxPages = 64
)

// DefaultMaxQueryChars is the default cut of the query: queries are short,
// and a long one would eat the model's token window (Cohere Rerank 3.5 reads
// 4,096 tokens of query and document together).
const DefaultMaxQueryChars = 2000

// ClientOptions configures NewClient.
type ClientOptions struct {
	// Endpoint overrides the Bedrock agent runtime endpoint, for tests and
	// VPC endpoints.
	Endpoint string
	// Region of the reranker model; also the region of its ARN. Empty uses
	// the environment's (us-east-1 with an Endpoint).
	Region string
	// AccessKey and SecretKey are static credentials; empty uses the
	// default chain.
	AccessKey, SecretKey string
	// MaxAttempts per call, throttling included (default 3: reranking is on
	// the query path, where the fused order is a fine answer), with
	// exponential backoff and full jitter up to MaxBackoff (default 1 s).
	MaxAttempts int
	MaxBackoff  time.Duration
}

// NewClient returns a bedrockagentruntime client whose retryer retries
// ThrottlingException, 5xx and transient errors with jittered backoff and
// no client-side rate limit, as llm/bedrock does for the runtime client.
func NewClient(ctx context.Context, o ClientOptions) (*bedrockagentruntime.Client, error) {
	if o.MaxAttempts < 0 {
		return nil, fmt.Errorf("bedrock-rerank: ClientOptions.MaxAttempts %d is negative", o.MaxAttempts)
	}
	if o.MaxBackoff < 0 {
		return nil, fmt.Errorf("bedrock-rerank: ClientOptions.MaxBackoff %s is negative", o.MaxBackoff)
	}
	if o.MaxAttempts == 0 {
		o.MaxAttempts = 3
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = time.Second
	}
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey,
		SecretKey: o.SecretKey, MaxAttempts: o.MaxAttempts, MaxBackoff: o.MaxBackoff, NoRateLimit: true})
	if err != nil {
		return nil, fmt.Errorf("bedrock-rerank: aws config: %w", err)
	}
	return bedrockagentruntime.NewFromConfig(cfg, func(bo *bedrockagentruntime.Options) {
		if o.Endpoint != "" {
			bo.BaseEndpoint = aws.String(o.Endpoint)
		}
	}), nil
}

// Options configures a Reranker.
type Options struct {
	// Model is AmazonRerankV1, CohereRerankV35, or the full ARN of a
	// reranker model (arn:aws:bedrock:REGION::foundation-model/ID). A model
	// id becomes arn:aws:bedrock:{client region}::foundation-model/{id}.
	Model string
	// MaxDocs is the most documents sent per call (default and at most
	// MaxSources); the rest score math.Inf(-1).
	MaxDocs int
	// MaxDocChars cuts each document (default and at most MaxTextChars).
	MaxDocChars int
	// MaxQueryChars cuts the query (default DefaultMaxQueryChars, at most
	// MaxTextChars).
	MaxQueryChars int
	// Timeout per Rerank call, retries and pages included (default 10 s).
	Timeout time.Duration
}

// Reranker scores documents with a Bedrock reranker model. It is safe for
// concurrent use.
type Reranker struct {
	c     *bedrockagentruntime.Client
	model string // as configured, for Name
	arn   string
	o     Options
}

var _ memory.Reranker = (*Reranker)(nil)

// New returns a Reranker over client c, which NewClient builds.
func New(c *bedrockagentruntime.Client, o Options) (*Reranker, error) {
	if c == nil {
		return nil, errors.New("bedrock-rerank: a bedrockagentruntime client is required")
	}
	arn, err := modelARN(o.Model, c.Options().Region)
	if err != nil {
		return nil, err
	}
	for _, f := range []struct {
		name     string
		v        *int
		def, max int
	}{
		{"MaxDocs", &o.MaxDocs, MaxSources, MaxSources},
		{"MaxDocChars", &o.MaxDocChars, MaxTextChars, MaxTextChars},
		{"MaxQueryChars", &o.MaxQueryChars, DefaultMaxQueryChars, MaxTextChars},
	} {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < 0 || *f.v > f.max:
			return nil, fmt.Errorf("bedrock-rerank: Options.%s %d is outside 1..%d", f.name, *f.v, f.max)
		}
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = 10 * time.Second
	case o.Timeout < 0:
		return nil, fmt.Errorf("bedrock-rerank: Options.Timeout %s is negative", o.Timeout)
	}
	return &Reranker{c: c, model: o.Model, arn: arn, o: o}, nil
}

// modelARN returns the foundation-model ARN of model in region.
func modelARN(model, region string) (string, error) {
	switch {
	case model == "":
		return "", fmt.Errorf("bedrock-rerank: Options.Model is required (%s or %s, or a model ARN)", AmazonRerankV1, CohereRerankV35)
	case strings.HasPrefix(model, "arn:"):
		if !strings.HasPrefix(model, "arn:aws") || !strings.Contains(model, ":bedrock:") || !strings.Contains(model, "/") {
			return "", fmt.Errorf("bedrock-rerank: Options.Model %q is not a Bedrock model ARN", model)
		}
		return model, nil
	case model != AmazonRerankV1 && model != CohereRerankV35:
		return "", fmt.Errorf("bedrock-rerank: Options.Model %q is not a Bedrock reranker model (%s or %s, or a model ARN)", model, AmazonRerankV1, CohereRerankV35)
	case region == "":
		return "", fmt.Errorf("bedrock-rerank: the client has no region to build the ARN of %s; set ClientOptions.Region", model)
	}
	return "arn:aws:bedrock:" + region + "::foundation-model/" + model, nil
}

// Name returns "bedrock-rerank:" and the model, for example
// "bedrock-rerank:cohere.rerank-v3-5:0".
func (r *Reranker) Name() string { return "bedrock-rerank:" + r.model }

// ModelARN returns the ARN the reranker sends.
func (r *Reranker) ModelARN() string { return r.arn }

// Rerank scores docs against query: one score per document in docs' order,
// the model's relevance score (higher is more relevant), math.Inf(-1) for
// documents not sent (empty, or beyond MaxDocs) or left out of the answer.
func (r *Reranker) Rerank(ctx context.Context, query string, docs []string) ([]float64, error) {
	if strings.TrimSpace(query) == "" {
		return nil, memory.Errorf(memory.EINVALID, "rerank: the query is empty")
	}
	scores := make([]float64, len(docs))
	for i := range scores {
		scores[i] = math.Inf(-1)
	}
	var sources []types.RerankSource
	var orig []int // orig[k] is the index in docs of source k
	for i, d := range docs {
		if len(sources) == r.o.MaxDocs {
			break
		}
		if d == "" {
			continue
		}
		sources = append(sources, types.RerankSource{Type: types.RerankSourceTypeInline,
			InlineDocumentSource: &types.RerankDocument{Type: types.RerankDocumentTypeText,
				TextDocument: &types.RerankTextDocument{Text: aws.String(truncateUTF16(d, r.o.MaxDocChars))}}})
		orig = append(orig, i)
	}
	if len(sources) == 0 {
		return scores, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.o.Timeout)
	defer cancel()
	in := &bedrockagentruntime.RerankInput{
		Queries: []types.RerankQuery{{Type: types.RerankQueryContentTypeText,
			TextQuery: &types.RerankTextDocument{Text: aws.String(truncateUTF16(query, r.o.MaxQueryChars))}}},
		Sources: sources,
		RerankingConfiguration: &types.RerankingConfiguration{Type: types.RerankingConfigurationTypeBedrockRerankingModel,
			BedrockRerankingConfiguration: &types.BedrockRerankingConfiguration{
				ModelConfiguration: &types.BedrockRerankingModelConfiguration{ModelArn: aws.String(r.arn)},
				NumberOfResults:    aws.Int32(int32(len(sources))),
			}},
	}
	seen := make([]bool, len(sources))
	for page := 0; ; page++ {
		out, err := r.c.Rerank(ctx, in)
		if err != nil {
			return nil, r.fail(err)
		}
		for _, res := range out.Results {
			if res.Index == nil || res.RelevanceScore == nil {
				return nil, r.malformed("a result without an index or a relevance score")
			}
			k := int(*res.Index)
			if k < 0 || k >= len(sources) {
				return nil, r.malformed(fmt.Sprintf("index %d outside the %d sources sent", k, len(sources)))
			}
			if seen[k] {
				return nil, r.malformed(fmt.Sprintf("index %d answered twice", k))
			}
			seen[k] = true
			scores[orig[k]] = float64(*res.RelevanceScore)
		}
		next := aws.ToString(out.NextToken)
		if next == "" {
			return scores, nil
		}
		if len(out.Results) == 0 || page+1 == maxPages {
			return nil, r.malformed("a nextToken without progress")
		}
		in.NextToken = aws.String(next)
	}
}

// fail maps an SDK error to the memory error codes, keeping it in the chain.
func (r *Reranker) fail(err error) error {
	op := "bedrock-rerank: rerank with " + r.model
	var ve *types.ValidationException
	var ip smithy.InvalidParamsError
	if errors.As(err, &ve) || errors.As(err, &ip) {
		return fmt.Errorf("%s: %w: %w", op, memory.Errorf(memory.EINTERNAL, "the reranker %s rejected the request", r.Name()), err)
	}
	return fmt.Errorf("%s: %w: %w", op, memory.Errorf(memory.EUNAVAILABLE, "the reranker %s is unavailable", r.Name()), err)
}

func (r *Reranker) malformed(what string) error {
	return fmt.Errorf("bedrock-rerank: rerank with %s: %w: malformed response: %s", r.model,
		memory.Errorf(memory.EUNAVAILABLE, "the reranker %s answered in a malformed way", r.Name()), what)
}

// truncateUTF16 returns the longest prefix of s, cut at a rune boundary,
// that is at most max UTF-16 code units long (the service's unit of length).
func truncateUTF16(s string, max int) string {
	if len(s) <= max { // bytes ≥ UTF-16 units for any valid or invalid UTF-8
		return s
	}
	n := 0
	for i, c := range s {
		w := 1
		if c >= 0x10000 {
			w = 2
		}
		if n+w > max {
			return s[:i]
		}
		n += w
	}
	return s
}
