// Package config reads the service configuration from environment
// variables, once, at start-up, and validates it.
package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// Config is the service configuration. See the README's configuration
// table for each variable.
type Config struct {
	Port     int        // PORT, default 8080
	Addr     string     // ADDR, default 127.0.0.1 (0.0.0.0 to listen on every interface)
	DataDir  string     // DATA_DIR, default ./data
	APIKeys  string     // API_KEYS: key=org or key=org/agent, comma-separated; empty = dev key
	Backend  string     // BACKEND: embedded (default) or aws (DynamoDB store)
	LogLevel slog.Level // LOG_LEVEL: debug, info (default), warn, error

	Index            string   // INDEX: embedded (default) or opensearch
	OpenSearchURLs   []string // OPENSEARCH_URL: comma-separated node URLs (INDEX=opensearch)
	OpenSearchAlias  string   // OPENSEARCH_ALIAS: default memories
	OpenSearchUser   string   // OPENSEARCH_USERNAME
	OpenSearchSecret string   // OPENSEARCH_PASSWORD
	OpenSearchSigV4  bool     // OPENSEARCH_SIGV4: sign requests with AWS credentials (Amazon OpenSearch Service)
	// OPENSEARCH_WRITER_ROLES: comma-separated IAM role ARNs the master (API)
	// function maps to the writer role at start (fine-grained access control).
	OpenSearchWriterRoles []string

	DynamoDBTable       string // DYNAMODB_TABLE: default agentmem (BACKEND=aws)
	DynamoDBEndpoint    string // DYNAMODB_ENDPOINT: DynamoDB Local or LocalStack; empty for AWS
	DynamoDBCreateTable bool   // DYNAMODB_CREATE_TABLE: create the table if missing (local servers)

	Embedder        string // EMBEDDER: auto (default: the offline model, onnx, if its files are there, else hash), onnx, hash or bedrock
	ModelDir        string // MODEL_DIR: where scripts/models.sh put the model (default /var/tmp/agentmem/models/bge-small-en-v1.5-int8)
	BedrockModel    string // BEDROCK_EMBED_MODEL: default amazon.titan-embed-text-v2:0
	BedrockDims     int    // BEDROCK_EMBED_DIMENSIONS: Titan 256, 512 or 1024 (default 1024)
	BedrockEndpoint string // BEDROCK_ENDPOINT: override (tests, VPC endpoints)
	AWSRegion       string // AWS_REGION

	ConsolidateEvery time.Duration // CONSOLIDATE_EVERY: local server's consolidation interval (default 24h; 0 disables)

	IngestMaxBytes     int // INGEST_MAX_BYTES: largest document ingested (default 25 MiB)
	IngestChunkSize    int // INGEST_CHUNK_SIZE: fragment size in characters (default 1000)
	IngestChunkOverlap int // INGEST_CHUNK_OVERLAP: overlap in characters (default 200)

	HalfLifeStandard  time.Duration // CONSOLIDATE_HALF_LIFE_STANDARD (default 2160h = 90 days)
	HalfLifeEphemeral time.Duration // CONSOLIDATE_HALF_LIFE_EPHEMERAL (default 168h = 7 days)
	ArchiveBelow      float64       // CONSOLIDATE_ARCHIVE_BELOW (default 0.1)
	Retention         time.Duration // CONSOLIDATE_RETENTION: archived memories are deleted after (default 2160h)

	ExtractQueueURL string // EXTRACT_QUEUE_URL: the SQS queue of extraction jobs (the API Lambda sends to it)
	SQSEndpoint     string // SQS_ENDPOINT: override (ElasticMQ, LocalStack)

	// AccessRecording (ACCESS_RECORDING) is how searches record accesses:
	// async (in the background, the default of a long-running server) or
	// sync (before answering, the default in Lambda, whose environment may
	// be frozen right after the response).
	AccessRecording string
}

// Load reads the configuration through getenv (os.Getenv in production).
func Load(getenv func(string) string) (Config, error) {
	c := Config{Port: 8080, Addr: "127.0.0.1", DataDir: "./data", Backend: "embedded", LogLevel: slog.LevelInfo}
	if v := getenv("PORT"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 0 || p > 65535 {
			return c, fmt.Errorf("PORT: %q is not a port number", v)
		}
		c.Port = p
	}
	if v := getenv("ADDR"); v != "" {
		c.Addr = v
	}
	if v := getenv("DATA_DIR"); v != "" {
		c.DataDir = v
	}
	c.APIKeys = getenv("API_KEYS")
	if v := getenv("BACKEND"); v != "" {
		c.Backend = strings.ToLower(v)
	}
	switch c.Backend {
	case "embedded", "aws":
	default:
		return c, fmt.Errorf("BACKEND: %q is not embedded or aws", c.Backend)
	}
	c.DynamoDBTable = getenv("DYNAMODB_TABLE")
	if c.DynamoDBTable == "" {
		c.DynamoDBTable = "agentmem"
	}
	c.DynamoDBEndpoint = getenv("DYNAMODB_ENDPOINT")
	if v := getenv("DYNAMODB_CREATE_TABLE"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("DYNAMODB_CREATE_TABLE: %q is not true or false", v)
		}
		c.DynamoDBCreateTable = b
	}
	c.AWSRegion = getenv("AWS_REGION")
	c.Embedder = strings.ToLower(getenv("EMBEDDER"))
	switch c.Embedder {
	case "":
		c.Embedder = "auto"
	case "auto", "onnx", "hash", "bedrock":
	default:
		return c, fmt.Errorf("EMBEDDER: %q is not auto, onnx, hash or bedrock", c.Embedder)
	}
	c.ModelDir = getenv("MODEL_DIR")
	if c.ModelDir == "" {
		c.ModelDir = "/var/tmp/agentmem/models/bge-small-en-v1.5-int8"
	}
	c.BedrockModel = getenv("BEDROCK_EMBED_MODEL")
	if c.BedrockModel == "" {
		c.BedrockModel = "amazon.titan-embed-text-v2:0"
	}
	if v := getenv("BEDROCK_EMBED_DIMENSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return c, fmt.Errorf("BEDROCK_EMBED_DIMENSIONS: %q is not a number", v)
		}
		c.BedrockDims = n
	}
	c.BedrockEndpoint = getenv("BEDROCK_ENDPOINT")
	c.ExtractQueueURL, c.SQSEndpoint = getenv("EXTRACT_QUEUE_URL"), getenv("SQS_ENDPOINT")
	c.AccessRecording = strings.ToLower(getenv("ACCESS_RECORDING"))
	switch c.AccessRecording {
	case "":
		c.AccessRecording = "async"
		if getenv("AWS_LAMBDA_FUNCTION_NAME") != "" {
			c.AccessRecording = "sync"
		}
	case "async", "sync":
	default:
		return c, fmt.Errorf("ACCESS_RECORDING: %q is not async or sync", c.AccessRecording)
	}
	ints := []struct {
		name     string
		dst      *int
		def, min int
	}{{"INGEST_MAX_BYTES", &c.IngestMaxBytes, 25 << 20, 1}, {"INGEST_CHUNK_SIZE", &c.IngestChunkSize, 1000, 50},
		{"INGEST_CHUNK_OVERLAP", &c.IngestChunkOverlap, 200, 0}}
	for _, v := range ints {
		*v.dst = v.def
		if s := getenv(v.name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < v.min {
				return c, fmt.Errorf("%s: %q is not a whole number >= %d", v.name, s, v.min)
			}
			*v.dst = n
		}
	}
	if c.IngestChunkOverlap >= c.IngestChunkSize {
		return c, fmt.Errorf("INGEST_CHUNK_OVERLAP: %d must be smaller than INGEST_CHUNK_SIZE %d", c.IngestChunkOverlap, c.IngestChunkSize)
	}
	durs := []struct {
		name string
		dst  *time.Duration
		def  time.Duration
	}{{"CONSOLIDATE_HALF_LIFE_STANDARD", &c.HalfLifeStandard, 90 * 24 * time.Hour},
		{"CONSOLIDATE_HALF_LIFE_EPHEMERAL", &c.HalfLifeEphemeral, 7 * 24 * time.Hour},
		{"CONSOLIDATE_RETENTION", &c.Retention, 90 * 24 * time.Hour}}
	for _, v := range durs {
		*v.dst = v.def
		if s := getenv(v.name); s != "" {
			d, err := time.ParseDuration(s)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("%s: %q is not a positive duration such as 2160h", v.name, s)
			}
			*v.dst = d
		}
	}
	c.ArchiveBelow = 0.1
	if s := getenv("CONSOLIDATE_ARCHIVE_BELOW"); s != "" {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < 0 || f >= 1 {
			return c, fmt.Errorf("CONSOLIDATE_ARCHIVE_BELOW: %q is not a number in [0, 1)", s)
		}
		c.ArchiveBelow = f
	}
	c.ConsolidateEvery = 24 * time.Hour
	if v := getenv("CONSOLIDATE_EVERY"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("CONSOLIDATE_EVERY: %q is not a duration such as 24h or 30m (0 disables)", v)
		}
		c.ConsolidateEvery = d
	}
	c.Index = strings.ToLower(getenv("INDEX"))
	switch c.Index {
	case "":
		c.Index = "embedded"
	case "embedded":
	case "opensearch":
		for _, u := range strings.Split(getenv("OPENSEARCH_URL"), ",") {
			if u = strings.TrimSpace(u); u != "" {
				if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
					return c, fmt.Errorf("OPENSEARCH_URL: %q is not an http(s) URL", u)
				}
				c.OpenSearchURLs = append(c.OpenSearchURLs, u)
			}
		}
		if len(c.OpenSearchURLs) == 0 {
			return c, fmt.Errorf("OPENSEARCH_URL: required with INDEX=opensearch")
		}
	default:
		return c, fmt.Errorf("INDEX: %q is not embedded or opensearch", c.Index)
	}
	c.OpenSearchAlias = getenv("OPENSEARCH_ALIAS")
	if c.OpenSearchAlias == "" {
		c.OpenSearchAlias = "memories"
	}
	c.OpenSearchUser, c.OpenSearchSecret = getenv("OPENSEARCH_USERNAME"), getenv("OPENSEARCH_PASSWORD")
	c.OpenSearchSigV4 = getenv("OPENSEARCH_SIGV4") == "true"
	for _, r := range strings.Split(getenv("OPENSEARCH_WRITER_ROLES"), ",") {
		if r = strings.TrimSpace(r); r != "" {
			c.OpenSearchWriterRoles = append(c.OpenSearchWriterRoles, r)
		}
	}
	if v := getenv("LOG_LEVEL"); v != "" {
		if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
			return c, fmt.Errorf("LOG_LEVEL: %q is not debug, info, warn or error", v)
		}
	}
	return c, nil
}
