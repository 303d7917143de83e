// Package config reads the service configuration from environment
// variables, once, at start-up, and validates it. It is the only package
// that reads the environment: every other package receives its group.
//
// The configuration is grouped per component (Server, Store, Index,
// Embedder, LLM, Ingest, Extraction, Consolidation, ...); each group has
// its own loader, and Load runs them all and reports every bad variable at
// once. The README's configuration table lists each variable.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// Config is the service configuration.
type Config struct {
	LogLevel slog.Level // LOG_LEVEL: debug, info (default), warn, error
	// DataDir (DATA_DIR, default ./data) holds the embedded store, the
	// embedded index and the development key.
	DataDir string

	AWS           AWS
	Server        Server
	Service       Service
	Store         Store
	Index         Index
	Embedder      Embedder
	LLM           LLM
	Rerank        Rerank
	Ingest        Ingest
	Extraction    Extraction
	Consolidation Consolidation
	Limits        Limits
	Quotas        Quotas
}

// AWS is what every AWS adapter shares.
type AWS struct {
	Region string // AWS_REGION (credentials come from the SDK's usual chain)
	// BedrockEndpoint (BEDROCK_ENDPOINT) overrides Bedrock's endpoint for
	// the embedder and the LLM (tests, VPC endpoints).
	BedrockEndpoint string
	// InLambda is set when AWS_LAMBDA_FUNCTION_NAME is (the Lambda runtime
	// sets it).
	InLambda bool
	// TokenSecretName (TOKEN_SECRET_NAME) is the Secrets Manager secret
	// (name or ARN) that signs end-user tokens in AWS; empty: the API
	// mints none and the authorizer accepts none. memoryd keeps its
	// signing keys in its store instead.
	TokenSecretName string
}

// Server is the local HTTP server (memoryd).
type Server struct {
	Port int    // PORT, default 8080
	Addr string // ADDR, default 127.0.0.1 (0.0.0.0 to listen on every interface)
	// APIKeys (API_KEYS): key=org or key=org/agent, comma-separated; empty
	// means the keys in DynamoDB with BACKEND=aws, else the dev key.
	APIKeys string
}

// The ways searches record accesses (ACCESS_RECORDING).
const (
	AccessAsync = "async"
	AccessSync  = "sync"
)

// Service configures the memory service.
type Service struct {
	// AccessRecording (ACCESS_RECORDING) is how searches record accesses:
	// async (in the background, the default of a long-running server) or
	// sync (before answering, the default in Lambda, whose environment may
	// be frozen right after the response).
	AccessRecording string
	// AccessWindow (ACCESS_WINDOW, default 1s, 0 to 1m) is how long the
	// async access writer gathers searches' accesses into one write: the
	// counts a memory shows lag its searches by at most this much, and a
	// crash loses at most this much of them; a longer window makes fewer,
	// longer writes (docs/operations.md, "Access counts").
	AccessWindow time.Duration
	// Weights (SEARCH_WEIGHTS) are the ranked lists' weights in the
	// fusion, as list=weight pairs separated by commas (for example
	// "keyword=1,semantic=1,knowledge=0.5"). A list not named keeps its
	// default: 1, and 0.5 for knowledge and entity (docs/benchmarks.md
	// says why).
	Weights map[string]float64
}

// MaxAccessWindow bounds ACCESS_WINDOW: the accesses of a longer window
// are more than one write should hold the store's writer for.
const MaxAccessWindow = time.Minute

// The search lists SEARCH_WEIGHTS may name.
var searchLists = []string{"keyword", "semantic", "knowledge", "time", "entity", "when", "decompose"}

// The rerankers (RERANKER).
const (
	RerankNone       = "none"
	RerankBedrock    = "bedrock"     // the Bedrock Rerank API
	RerankLLM        = "llm"         // the model LLM_PROVIDER configures, through a forced tool
	RerankBedrockLLM = "bedrock-llm" // llm, requiring LLM_PROVIDER=bedrock (Bedrock Converse)
	RerankHTTP       = "http"        // a self-hosted /rerank endpoint (Cohere/Jina or TEI shape)
)

// Rerank selects and configures the rerank stage of searches.
type Rerank struct {
	// Kind (RERANKER): none (the default), bedrock, llm, bedrock-llm or
	// http.
	Kind string
	// Model (RERANK_MODEL): with bedrock, amazon.rerank-v1:0 (the default)
	// or cohere.rerank-v3-5:0 or a model ARN; with http, the model name the
	// endpoint expects (required for the cohere flavor); with llm, the
	// name reported for the model (default LLM_MODEL).
	Model  string
	URL    string // RERANK_URL: the /rerank endpoint's base URL (required with http)
	APIKey string // RERANK_API_KEY: bearer key of the /rerank endpoint, if it needs one
	Flavor string // RERANK_FLAVOR: cohere (the default: Cohere, Jina, vLLM, Infinity) or tei
	// Region (RERANK_REGION) is the Bedrock Rerank region, which may differ
	// from AWS_REGION: the reranker models are offered in fewer regions.
	Region string
	// Candidates (RERANK_CANDIDATES) is how many fused candidates the
	// reranker sees; 0, the default, is max(12, 2×k), the Lota ratio.
	Candidates int
	// Timeout (RERANK_TIMEOUT, default 5s) bounds one rerank; past it the
	// search answers in the fused order and says it was not reranked.
	Timeout time.Duration
}

// The stores (BACKEND).
const (
	BackendEmbedded = "embedded"
	BackendAWS      = "aws"
)

// Store selects and configures the store, the source of truth.
type Store struct {
	Backend             string // BACKEND: embedded (SQLite in DATA_DIR, the default) or aws (DynamoDB)
	DynamoDBTable       string // DYNAMODB_TABLE: default agentmem (BACKEND=aws)
	DynamoDBEndpoint    string // DYNAMODB_ENDPOINT: DynamoDB Local or LocalStack; empty for AWS
	DynamoDBCreateTable bool   // DYNAMODB_CREATE_TABLE: create the table if missing (local servers)
}

// The indexes (INDEX).
const (
	IndexEmbedded   = "embedded"
	IndexOpenSearch = "opensearch"
)

// Index selects and configures the search index.
type Index struct {
	Kind             string   // INDEX: embedded (default, in DATA_DIR) or opensearch
	OpenSearchURLs   []string // OPENSEARCH_URL: comma-separated node URLs (required with INDEX=opensearch)
	OpenSearchAlias  string   // OPENSEARCH_ALIAS: default memories
	OpenSearchUser   string   // OPENSEARCH_USERNAME
	OpenSearchSecret string   // OPENSEARCH_PASSWORD
	OpenSearchSigV4  bool     // OPENSEARCH_SIGV4: sign requests with AWS credentials (Amazon OpenSearch Service)
	// OpenSearchWriterRoles (OPENSEARCH_WRITER_ROLES): comma-separated IAM
	// role ARNs the master (API) function maps to the writer role at start
	// (fine-grained access control).
	OpenSearchWriterRoles []string
	// ANN configures the embedded index's approximate vector search (its
	// HNSW graph, index/bolt); a zero field keeps the index's default.
	ANN ANN
	// ReleasePages (INDEX_RELEASE_PAGES, default false): the embedded
	// index's searches and writes take the bbolt file's pages they read out
	// of the process's resident set (bolt.Index.ReleasePages), for 0.2 to
	// 0.4 ms more per vector search; docs/operations.md.
	ReleasePages bool
}

// ANN is the embedded index's approximate vector search configuration.
type ANN struct {
	// Threshold (INDEX_ANN_THRESHOLD) is the vectors an org needs before
	// its searches walk the graph; -1 keeps search exact at any size.
	Threshold int
	// M (INDEX_ANN_M) is the neighbours per node above layer 0 (2·M on
	// layer 0): more is better recall, more memory and slower inserts.
	M int
	// EfConstruction (INDEX_ANN_EF_CONSTRUCTION) is the width of the
	// walk that links a new vector.
	EfConstruction int
	// EfSearch (INDEX_ANN_EF_SEARCH) is the width of a query's walk over
	// an org of up to 100,000 vectors; larger orgs walk wider.
	EfSearch int
}

// The embedders (EMBEDDER).
const (
	EmbedderAuto    = "auto"
	EmbedderONNX    = "onnx"
	EmbedderHash    = "hash"
	EmbedderBedrock = "bedrock"
)

// Embedder selects and configures the embedder.
type Embedder struct {
	// Kind (EMBEDDER): auto (default: the offline model, onnx, if its
	// files are in ModelDir, else hash), onnx, hash or bedrock.
	Kind              string
	ModelDir          string // MODEL_DIR: where scripts/models.sh put the model
	BedrockModel      string // BEDROCK_EMBED_MODEL: default amazon.titan-embed-text-v2:0
	BedrockDimensions int    // BEDROCK_EMBED_DIMENSIONS: Titan 256, 512 or 1024 (0: the model's default)
	// Sentences (EMBED_SENTENCES, default true): a message's vector
	// averages the vector of its exchange with that of its own sentences
	// (memory.EmbedMemories), which costs one embedding per sentence more.
	Sentences bool
}

// The LLM providers (LLM_PROVIDER).
const (
	LLMNone    = "none"
	LLMBedrock = "bedrock"
	LLMOpenAI  = "openai"
)

// The ways an LLM is made to answer with structured output (LLM_MODE).
const (
	LLMModeTools      = "tools"
	LLMModeJSONSchema = "json_schema"
)

// LLM selects and configures the language model that extraction (and the
// other LLM stages) call.
type LLM struct {
	// Provider (LLM_PROVIDER): none (the default, unless
	// BEDROCK_LLM_MODEL is set: then bedrock), bedrock or openai (any
	// OpenAI-compatible server).
	Provider string
	// Model (LLM_MODEL; for bedrock, BEDROCK_LLM_MODEL too): required
	// unless the provider is none.
	Model   string
	BaseURL string // LLM_BASE_URL: the OpenAI-compatible server (required with openai)
	APIKey  string // LLM_API_KEY: bearer key of the OpenAI-compatible server, if it needs one
	// Mode (LLM_MODE): tools (a forced tool call, the default) or
	// json_schema (structured output), for OpenAI-compatible servers.
	Mode    string
	Timeout time.Duration // LLM_TIMEOUT: per call (default 60s)
	// Queries (LLM_QUERIES, default true): the model also serves searches,
	// planning the decomposition list of a full search and translating
	// natural-language knowledge searches (one call per search, bounded);
	// false keeps searches on the offline rules, the model serving
	// extraction only.
	Queries bool
}

// Ingest configures document ingestion.
type Ingest struct {
	MaxBytes     int // INGEST_MAX_BYTES: largest document ingested (default 25 MiB)
	ChunkSize    int // INGEST_CHUNK_SIZE: fragment size in characters (default 1000)
	ChunkOverlap int // INGEST_CHUNK_OVERLAP: overlap in characters (default 200)
}

// Extraction configures the fact-extraction queue.
type Extraction struct {
	// QueueURL (EXTRACT_QUEUE_URL) is the SQS queue of extraction jobs
	// (the API Lambda sends to it).
	QueueURL      string
	QueueEndpoint string // SQS_ENDPOINT: override (ElasticMQ, LocalStack)
	// LocalQueueCap (EXTRACT_QUEUE_CAP, default 1000) bounds the local
	// server's in-process extraction queue: a job beyond it is refused
	// (the write answers 503 and may be retried) instead of growing memory.
	LocalQueueCap int
}

// Limits are the local server's abuse limits (API Gateway throttles in
// AWS). Rates and concurrency are per API key (per client address for
// requests without one); 0 disables a limit.
type Limits struct {
	Rate  float64 // RATE_LIMIT: requests per second per key (default 100)
	Burst int     // RATE_LIMIT_BURST: requests a key may send at once above its rate (default 200)
	// OrgRate (ORG_RATE_LIMIT) is the requests per second of all of an
	// org's keys together, a bucket above each key's (default 1.5 ×
	// RATE_LIMIT; 0 disables), with bursts of OrgBurst
	// (ORG_RATE_LIMIT_BURST, default 1.5 × RATE_LIMIT_BURST): minting
	// keys does not multiply an org's rate.
	OrgRate     float64
	OrgBurst    int
	Concurrency int           // CONCURRENCY_LIMIT: requests of one key in flight at once (default 32)
	Timeout     time.Duration // REQUEST_TIMEOUT: each request's context deadline (default 60s)
	// ReadTimeout (HTTP_READ_TIMEOUT, default 30s) bounds reading a
	// request, headers and body; WriteTimeout (HTTP_WRITE_TIMEOUT, default
	// REQUEST_TIMEOUT + 30s) bounds the whole exchange; IdleTimeout
	// (HTTP_IDLE_TIMEOUT, default 2m) closes idle keep-alive connections.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
}

// Quotas are the default per-org quotas, every server's; an org's own
// record (memctl quota) overrides them. 0 means unlimited.
type Quotas struct {
	Memories  int64 // QUOTA_MEMORIES: memories an org may hold (default 1,000,000)
	Bytes     int64 // QUOTA_BYTES: bytes of content text an org may hold (default 1 GiB)
	Documents int64 // QUOTA_DOCUMENTS: documents an org may hold (default 10,000)
	Keys      int   // QUOTA_KEYS: API keys an org may hold, revoked ones aside (default 100)
	// UsageTTL (QUOTA_USAGE_TTL) reuses a usage count this long: 0 (the
	// default of the embedded store, whose count is one row) reads it on
	// every write; with BACKEND=aws, where usage is counted by a query, it
	// defaults to 1m.
	UsageTTL time.Duration
}

// Consolidation configures the consolidation job.
type Consolidation struct {
	Every             time.Duration // CONSOLIDATE_EVERY: the local server's interval (default 24h; 0 disables)
	HalfLifeStandard  time.Duration // CONSOLIDATE_HALF_LIFE_STANDARD (default 2160h = 90 days)
	HalfLifeEphemeral time.Duration // CONSOLIDATE_HALF_LIFE_EPHEMERAL (default 168h = 7 days)
	ArchiveBelow      float64       // CONSOLIDATE_ARCHIVE_BELOW (default 0.1)
	Retention         time.Duration // CONSOLIDATE_RETENTION: archived memories are deleted after (default 2160h)
}

// FromEnv reads and validates the configuration from the process
// environment (Load with os.Getenv).
func FromEnv() (Config, error) { return Load(os.Getenv) }

// Load reads and validates the configuration through getenv (os.Getenv in
// production). The error names every variable that is wrong.
func Load(getenv func(string) string) (Config, error) {
	e := env(getenv)
	var c Config
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	c.LogLevel, err = e.logLevel("LOG_LEVEL")
	check(err)
	c.DataDir = e.str("DATA_DIR", "./data")
	c.AWS = LoadAWS(getenv)
	c.Server, err = LoadServer(getenv)
	check(err)
	c.Service, err = LoadService(getenv)
	check(err)
	c.Store, err = LoadStore(getenv)
	check(err)
	c.Index, err = LoadIndex(getenv)
	check(err)
	c.Embedder, err = LoadEmbedder(getenv)
	check(err)
	c.LLM, err = LoadLLM(getenv)
	check(err)
	c.Rerank, err = LoadRerank(getenv, c.LLM)
	check(err)
	c.Ingest, err = LoadIngest(getenv)
	check(err)
	c.Extraction = LoadExtraction(getenv)
	c.Consolidation, err = LoadConsolidation(getenv)
	check(err)
	c.Limits, err = LoadLimits(getenv)
	check(err)
	c.Quotas, err = LoadQuotas(getenv)
	check(err)
	if c.Extraction.LocalQueueCap, err = env(getenv).integer("EXTRACT_QUEUE_CAP", 1000, 1, 1<<24, "a whole number >= 1"); err != nil {
		check(err)
	}
	return c, errors.Join(errs...)
}

// LoadAWS reads the AWS group.
func LoadAWS(getenv func(string) string) AWS {
	e := env(getenv)
	return AWS{Region: e.str("AWS_REGION", ""), BedrockEndpoint: e.str("BEDROCK_ENDPOINT", ""),
		InLambda: e.str("AWS_LAMBDA_FUNCTION_NAME", "") != "", TokenSecretName: e.str("TOKEN_SECRET_NAME", "")}
}

// LoadServer reads the Server group.
func LoadServer(getenv func(string) string) (Server, error) {
	e := env(getenv)
	s := Server{Addr: e.str("ADDR", "127.0.0.1"), APIKeys: e.str("API_KEYS", "")}
	var err error
	s.Port, err = e.integer("PORT", 8080, 0, 65535, "a port number")
	return s, err
}

// LoadService reads the Service group; accesses are recorded in the
// background by default, before answering in Lambda.
func LoadService(getenv func(string) string) (Service, error) {
	e := env(getenv)
	def := AccessAsync
	if LoadAWS(getenv).InLambda {
		def = AccessSync
	}
	rec, err := e.choice("ACCESS_RECORDING", def, AccessAsync, AccessSync)
	win, winErr := e.duration("ACCESS_WINDOW", time.Second, true)
	if winErr == nil && win > MaxAccessWindow {
		win, winErr = time.Second, fmt.Errorf("ACCESS_WINDOW: %s is longer than %s", win, MaxAccessWindow)
	}
	w, werr := e.weights("SEARCH_WEIGHTS", searchLists)
	return Service{AccessRecording: rec, AccessWindow: win, Weights: w}, errors.Join(err, winErr, werr)
}

// LoadRerank reads the Rerank group; llm is the LLM group, which the llm
// rerankers use.
func LoadRerank(getenv func(string) string, llm LLM) (Rerank, error) {
	e := env(getenv)
	r := Rerank{Model: e.str("RERANK_MODEL", ""), URL: e.str("RERANK_URL", ""), APIKey: e.str("RERANK_API_KEY", ""),
		Region: e.str("RERANK_REGION", "")}
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var err error
	r.Kind, err = e.choice("RERANKER", RerankNone, RerankNone, RerankBedrock, RerankLLM, RerankBedrockLLM, RerankHTTP)
	add(err)
	r.Flavor, err = e.choice("RERANK_FLAVOR", "cohere", "cohere", "tei")
	add(err)
	r.Candidates, err = e.integer("RERANK_CANDIDATES", 0, 0, 100, "a whole number from 0 (automatic) to 100")
	add(err)
	r.Timeout, err = e.duration("RERANK_TIMEOUT", 5*time.Second, false)
	add(err)
	switch r.Kind {
	case RerankBedrock:
		if r.Model == "" {
			r.Model = "amazon.rerank-v1:0"
		}
	case RerankLLM, RerankBedrockLLM:
		switch {
		case llm.Provider == LLMNone:
			add(fmt.Errorf("RERANKER: %s needs a language model (set LLM_PROVIDER)", r.Kind))
		case r.Kind == RerankBedrockLLM && llm.Provider != LLMBedrock:
			add(fmt.Errorf("RERANKER: bedrock-llm needs LLM_PROVIDER=bedrock, not %q (use RERANKER=llm for any provider)", llm.Provider))
		}
		if r.Model == "" {
			r.Model = llm.Model
		}
	case RerankHTTP:
		if r.URL == "" {
			add(fmt.Errorf("RERANK_URL: required with RERANKER=http"))
		} else if !httpURL(r.URL) {
			add(fmt.Errorf("RERANK_URL: %q is not an http(s) URL", r.URL))
		}
		if r.Flavor == "cohere" && r.Model == "" {
			add(fmt.Errorf("RERANK_MODEL: required with RERANKER=http and RERANK_FLAVOR=cohere"))
		}
	}
	return r, errors.Join(errs...)
}

// LoadStore reads the Store group.
func LoadStore(getenv func(string) string) (Store, error) {
	e := env(getenv)
	s := Store{DynamoDBTable: e.str("DYNAMODB_TABLE", "agentmem"), DynamoDBEndpoint: e.str("DYNAMODB_ENDPOINT", "")}
	var errs [2]error
	s.Backend, errs[0] = e.choice("BACKEND", BackendEmbedded, BackendEmbedded, BackendAWS)
	s.DynamoDBCreateTable, errs[1] = e.boolean("DYNAMODB_CREATE_TABLE", false)
	return s, errors.Join(errs[:]...)
}

// LoadIndex reads the Index group; OPENSEARCH_URL is required with
// INDEX=opensearch.
func LoadIndex(getenv func(string) string) (Index, error) {
	e := env(getenv)
	ix := Index{OpenSearchAlias: e.str("OPENSEARCH_ALIAS", "memories"), OpenSearchUser: e.str("OPENSEARCH_USERNAME", ""),
		OpenSearchSecret: e.str("OPENSEARCH_PASSWORD", ""), OpenSearchWriterRoles: e.list("OPENSEARCH_WRITER_ROLES")}
	var errs []error
	var err error
	if ix.Kind, err = e.choice("INDEX", IndexEmbedded, IndexEmbedded, IndexOpenSearch); err != nil {
		errs = append(errs, err)
	}
	if ix.OpenSearchSigV4, err = e.boolean("OPENSEARCH_SIGV4", false); err != nil {
		errs = append(errs, err)
	}
	if ix.ReleasePages, err = e.boolean("INDEX_RELEASE_PAGES", false); err != nil {
		errs = append(errs, err)
	}
	for _, v := range []struct {
		name     string
		to       *int
		min, max int
		what     string
	}{
		{"INDEX_ANN_THRESHOLD", &ix.ANN.Threshold, -1, 1 << 30, "a number of vectors (-1: always exact)"},
		{"INDEX_ANN_M", &ix.ANN.M, 4, 64, "a number of neighbours from 4 to 64"},
		{"INDEX_ANN_EF_CONSTRUCTION", &ix.ANN.EfConstruction, 16, 1024, "a walk width from 16 to 1024"},
		{"INDEX_ANN_EF_SEARCH", &ix.ANN.EfSearch, 16, 1024, "a walk width from 16 to 1024"},
	} {
		if *v.to, err = e.integer(v.name, 0, v.min, v.max, v.what); err != nil {
			errs = append(errs, err)
		}
	}
	if ix.ANN.Threshold == 0 && e("INDEX_ANN_THRESHOLD") == "0" {
		errs = append(errs, fmt.Errorf("INDEX_ANN_THRESHOLD: \"0\" is not a number of vectors (-1: always exact)"))
	}
	if ix.Kind == IndexOpenSearch {
		for _, u := range e.list("OPENSEARCH_URL") {
			if !httpURL(u) {
				errs = append(errs, fmt.Errorf("OPENSEARCH_URL: %q is not an http(s) URL", u))
				continue
			}
			ix.OpenSearchURLs = append(ix.OpenSearchURLs, u)
		}
		if len(ix.OpenSearchURLs) == 0 && len(errs) == 0 {
			errs = append(errs, fmt.Errorf("OPENSEARCH_URL: required with INDEX=opensearch"))
		}
	}
	return ix, errors.Join(errs...)
}

// LoadEmbedder reads the Embedder group.
func LoadEmbedder(getenv func(string) string) (Embedder, error) {
	e := env(getenv)
	em := Embedder{ModelDir: e.str("MODEL_DIR", "/var/tmp/agentmem/models/bge-small-en-v1.5-int8"),
		BedrockModel: e.str("BEDROCK_EMBED_MODEL", "amazon.titan-embed-text-v2:0")}
	var errs [3]error
	em.Kind, errs[0] = e.choice("EMBEDDER", EmbedderAuto, EmbedderAuto, EmbedderONNX, EmbedderHash, EmbedderBedrock)
	em.BedrockDimensions, errs[1] = e.integer("BEDROCK_EMBED_DIMENSIONS", 0, 0, 1<<16, "a number of dimensions")
	em.Sentences, errs[2] = e.boolean("EMBED_SENTENCES", true)
	return em, errors.Join(errs[:]...)
}

// LoadLLM reads the LLM group. BEDROCK_LLM_MODEL is the Bedrock model's
// older name: it sets the model and, without LLM_PROVIDER, selects
// bedrock. An OpenAI-compatible provider needs LLM_BASE_URL and LLM_MODEL.
func LoadLLM(getenv func(string) string) (LLM, error) {
	e := env(getenv)
	l := LLM{Model: e.str("LLM_MODEL", ""), BaseURL: e.str("LLM_BASE_URL", ""), APIKey: e.str("LLM_API_KEY", "")}
	bedrockModel := e.str("BEDROCK_LLM_MODEL", "")
	def := LLMNone
	if bedrockModel != "" {
		def = LLMBedrock
	}
	var errs []error
	var err error
	if l.Provider, err = e.choice("LLM_PROVIDER", def, LLMNone, LLMBedrock, LLMOpenAI); err != nil {
		errs = append(errs, err)
	}
	if l.Mode, err = e.choice("LLM_MODE", LLMModeTools, LLMModeTools, LLMModeJSONSchema); err != nil {
		errs = append(errs, err)
	}
	if l.Timeout, err = e.duration("LLM_TIMEOUT", 60*time.Second, false); err != nil {
		errs = append(errs, err)
	}
	if l.Queries, err = e.boolean("LLM_QUERIES", true); err != nil {
		errs = append(errs, err)
	}
	switch l.Provider {
	case LLMBedrock:
		switch {
		case l.Model == "":
			l.Model = bedrockModel
		case bedrockModel != "" && bedrockModel != l.Model:
			errs = append(errs, fmt.Errorf("LLM_MODEL: %q and BEDROCK_LLM_MODEL %q name different models; set one", l.Model, bedrockModel))
		}
		if l.Model == "" {
			errs = append(errs, fmt.Errorf("LLM_MODEL: required with LLM_PROVIDER=bedrock (or set BEDROCK_LLM_MODEL)"))
		}
	case LLMOpenAI:
		if l.BaseURL == "" {
			errs = append(errs, fmt.Errorf("LLM_BASE_URL: required with LLM_PROVIDER=openai"))
		} else if !httpURL(l.BaseURL) {
			errs = append(errs, fmt.Errorf("LLM_BASE_URL: %q is not an http(s) URL", l.BaseURL))
		}
		if l.Model == "" {
			errs = append(errs, fmt.Errorf("LLM_MODEL: required with LLM_PROVIDER=openai"))
		}
	}
	return l, errors.Join(errs...)
}

// LoadIngest reads the Ingest group; the overlap must be smaller than the
// fragment.
func LoadIngest(getenv func(string) string) (Ingest, error) {
	e := env(getenv)
	var in Ingest
	var errs [3]error
	in.MaxBytes, errs[0] = e.integer("INGEST_MAX_BYTES", 25<<20, 1, 1<<40, "a whole number >= 1")
	in.ChunkSize, errs[1] = e.integer("INGEST_CHUNK_SIZE", 1000, 50, 1<<30, "a whole number >= 50")
	in.ChunkOverlap, errs[2] = e.integer("INGEST_CHUNK_OVERLAP", 200, 0, 1<<30, "a whole number >= 0")
	if err := errors.Join(errs[:]...); err != nil {
		return in, err
	}
	if in.ChunkOverlap >= in.ChunkSize {
		return in, fmt.Errorf("INGEST_CHUNK_OVERLAP: %d must be smaller than INGEST_CHUNK_SIZE %d", in.ChunkOverlap, in.ChunkSize)
	}
	return in, nil
}

// LoadExtraction reads the Extraction group.
func LoadExtraction(getenv func(string) string) Extraction {
	e := env(getenv)
	return Extraction{QueueURL: e.str("EXTRACT_QUEUE_URL", ""), QueueEndpoint: e.str("SQS_ENDPOINT", "")}
}

// LoadLimits reads the Limits group; the write timeout must leave the
// request its whole deadline.
func LoadLimits(getenv func(string) string) (Limits, error) {
	e := env(getenv)
	var l Limits
	var errs [9]error
	l.Rate, errs[0] = e.float("RATE_LIMIT", 100, "a number of requests per second >= 0 (0 disables)")
	l.Burst, errs[1] = e.integer("RATE_LIMIT_BURST", 200, 1, 1<<30, "a whole number >= 1")
	l.OrgRate, errs[7] = e.float("ORG_RATE_LIMIT", l.Rate*1.5, "a number of requests per second >= 0 (0 disables)")
	l.OrgBurst, errs[8] = e.integer("ORG_RATE_LIMIT_BURST", max(1, l.Burst*3/2), 1, 1<<30, "a whole number >= 1")
	l.Concurrency, errs[2] = e.integer("CONCURRENCY_LIMIT", 32, 0, 1<<20, "a whole number >= 0 (0 disables)")
	l.Timeout, errs[3] = e.duration("REQUEST_TIMEOUT", 60*time.Second, false)
	l.ReadTimeout, errs[4] = e.duration("HTTP_READ_TIMEOUT", 30*time.Second, false)
	l.WriteTimeout, errs[5] = e.duration("HTTP_WRITE_TIMEOUT", l.Timeout+30*time.Second, false)
	l.IdleTimeout, errs[6] = e.duration("HTTP_IDLE_TIMEOUT", 2*time.Minute, false)
	if err := errors.Join(errs[:]...); err != nil {
		return l, err
	}
	if l.WriteTimeout <= l.Timeout {
		return l, fmt.Errorf("HTTP_WRITE_TIMEOUT: %v must be longer than REQUEST_TIMEOUT %v (the answer to a timed-out request must still be written)", l.WriteTimeout, l.Timeout)
	}
	return l, nil
}

// LoadQuotas reads the Quotas group.
func LoadQuotas(getenv func(string) string) (Quotas, error) {
	e := env(getenv)
	var q Quotas
	var errs [5]error
	var n int
	q.Keys, errs[4] = e.integer("QUOTA_KEYS", 100, 0, 1<<30, "a whole number >= 0 (0: unlimited)")
	n, errs[0] = e.integer("QUOTA_MEMORIES", 1_000_000, 0, 1<<50, "a whole number >= 0 (0: unlimited)")
	q.Memories = int64(n)
	n, errs[1] = e.integer("QUOTA_BYTES", 1<<30, 0, 1<<50, "a number of bytes >= 0 (0: unlimited)")
	q.Bytes = int64(n)
	n, errs[2] = e.integer("QUOTA_DOCUMENTS", 10_000, 0, 1<<50, "a whole number >= 0 (0: unlimited)")
	q.Documents = int64(n)
	ttl := time.Duration(0)
	if e.str("BACKEND", "") == BackendAWS {
		ttl = time.Minute
	}
	q.UsageTTL, errs[3] = e.duration("QUOTA_USAGE_TTL", ttl, true)
	return q, errors.Join(errs[:]...)
}

// LoadConsolidation reads the Consolidation group.
func LoadConsolidation(getenv func(string) string) (Consolidation, error) {
	e := env(getenv)
	var c Consolidation
	var errs [5]error
	c.Every, errs[0] = e.duration("CONSOLIDATE_EVERY", 24*time.Hour, true)
	c.HalfLifeStandard, errs[1] = e.duration("CONSOLIDATE_HALF_LIFE_STANDARD", 90*24*time.Hour, false)
	c.HalfLifeEphemeral, errs[2] = e.duration("CONSOLIDATE_HALF_LIFE_EPHEMERAL", 7*24*time.Hour, false)
	c.Retention, errs[3] = e.duration("CONSOLIDATE_RETENTION", 90*24*time.Hour, false)
	c.ArchiveBelow = 0.1
	if s := getenv("CONSOLIDATE_ARCHIVE_BELOW"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f >= 1 {
			errs[4] = fmt.Errorf("CONSOLIDATE_ARCHIVE_BELOW: %q is not a number in [0, 1)", s)
		} else {
			c.ArchiveBelow = f
		}
	}
	return c, errors.Join(errs[:]...)
}

// env reads variables with defaults; each parser names its variable in
// its error.
type env func(string) string

func (e env) str(name, def string) string {
	if v := e(name); v != "" {
		return v
	}
	return def
}

// choice returns the lower-cased value of name, one of allowed.
func (e env) choice(name, def string, allowed ...string) (string, error) {
	v := strings.ToLower(e(name))
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return def, fmt.Errorf("%s: %q is not %s", name, v, orList(allowed))
}

// weights parses name as list=weight pairs over the lists allowed; a
// weight is a finite number >= 0 (0 turns the list off).
func (e env) weights(name string, allowed []string) (map[string]float64, error) {
	s := strings.TrimSpace(e(name))
	if s == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(pair), "=")
		k = strings.ToLower(strings.TrimSpace(k))
		if !ok {
			return nil, fmt.Errorf("%s: %q is not list=weight", name, pair)
		}
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			return nil, fmt.Errorf("%s: %q is not %s", name, k, orList(allowed))
		}
		if _, dup := out[k]; dup {
			return nil, fmt.Errorf("%s: %s is named twice", name, k)
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 100 || f != f {
			return nil, fmt.Errorf("%s: the weight of %s, %q, is not a number from 0 to 100", name, k, v)
		}
		out[k] = f
	}
	return out, nil
}

func (e env) integer(name string, def, min, max int, what string) (int, error) {
	s := e(name)
	if s == "" {
		return def, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < min || n > max {
		return def, fmt.Errorf("%s: %q is not %s", name, s, what)
	}
	return n, nil
}

func (e env) float(name string, def float64, what string) (float64, error) {
	s := e(name)
	if s == "" {
		return def, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f != f || f > 1e9 {
		return def, fmt.Errorf("%s: %q is not %s", name, s, what)
	}
	return f, nil
}

// duration parses a positive duration, or one >= 0 with zero allowed (0
// disables).
func (e env) duration(name string, def time.Duration, zero bool) (time.Duration, error) {
	s := e(name)
	if s == "" {
		return def, nil
	}
	d, err := time.ParseDuration(s)
	switch {
	case err == nil && (d > 0 || zero && d == 0):
		return d, nil
	case zero:
		return def, fmt.Errorf("%s: %q is not a duration such as 24h or 30m (0 disables)", name, s)
	}
	return def, fmt.Errorf("%s: %q is not a positive duration such as 2160h or 60s", name, s)
}

func (e env) boolean(name string, def bool) (bool, error) {
	s := e(name)
	if s == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return def, fmt.Errorf("%s: %q is not true or false", name, s)
	}
	return b, nil
}

// list splits a comma-separated value, dropping empty items.
func (e env) list(name string) []string {
	var out []string
	for _, v := range strings.Split(e(name), ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (e env) logLevel(name string) (slog.Level, error) {
	l := slog.LevelInfo
	if v := e(name); v != "" {
		if err := l.UnmarshalText([]byte(v)); err != nil {
			return slog.LevelInfo, fmt.Errorf("%s: %q is not debug, info, warn or error", name, v)
		}
	}
	return l, nil
}

func httpURL(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
}

// orList renders "a, b or c".
func orList(vs []string) string {
	if len(vs) == 1 {
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}
