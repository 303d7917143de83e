package config

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

// defaults is the configuration of an empty environment.
func defaults() Config {
	return Config{
		LogLevel: slog.LevelInfo, DataDir: "./data",
		Server:  Server{Port: 8080, Addr: "127.0.0.1"},
		Service: Service{AccessRecording: AccessAsync, AccessWindow: time.Second},
		Store:   Store{Backend: BackendEmbedded, DynamoDBTable: "agentmem"},
		Index:   Index{Kind: IndexEmbedded, OpenSearchAlias: "memories"},
		Embedder: Embedder{Kind: EmbedderAuto, ModelDir: "/var/tmp/agentmem/models/bge-small-en-v1.5-int8",
			BedrockModel: "amazon.titan-embed-text-v2:0", Sentences: true},
		LLM:    LLM{Provider: LLMNone, Mode: LLMModeTools, Timeout: 60 * time.Second, Queries: true},
		Rerank: Rerank{Kind: RerankNone, Flavor: "cohere", Timeout: 5 * time.Second},
		Ingest: Ingest{MaxBytes: 25 << 20, ChunkSize: 1000, ChunkOverlap: 200},
		Consolidation: Consolidation{Every: 24 * time.Hour, HalfLifeStandard: 2160 * time.Hour,
			HalfLifeEphemeral: 168 * time.Hour, Retention: 2160 * time.Hour, ArchiveBelow: 0.1},
		Extraction: Extraction{LocalQueueCap: 1000},
		Limits: Limits{Rate: 100, Burst: 200, OrgRate: 150, OrgBurst: 300, Concurrency: 32, Timeout: 60 * time.Second, ReadTimeout: 30 * time.Second,
			WriteTimeout: 90 * time.Second, IdleTimeout: 2 * time.Minute},
		Quotas: Quotas{Memories: 1_000_000, Bytes: 1 << 30, Documents: 10_000, Keys: 100},
	}
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    func(*Config) // applied to defaults()
		wantErr string
	}{
		{"defaults", nil, func(*Config) {}, ""},
		{"aws", map[string]string{"BACKEND": "aws", "DYNAMODB_TABLE": "mem", "DYNAMODB_ENDPOINT": "http://127.0.0.1:18000",
			"DYNAMODB_CREATE_TABLE": "true", "EMBEDDER": "bedrock", "BEDROCK_EMBED_MODEL": "cohere.embed-english-v3", "AWS_REGION": "eu-west-1",
			"EXTRACT_QUEUE_URL": "https://sqs.example/q", "SQS_ENDPOINT": "http://127.0.0.1:19324", "BEDROCK_ENDPOINT": "http://127.0.0.1:1"},
			func(c *Config) {
				c.Store = Store{Backend: BackendAWS, DynamoDBTable: "mem", DynamoDBEndpoint: "http://127.0.0.1:18000", DynamoDBCreateTable: true}
				c.Embedder.Kind, c.Embedder.BedrockModel = EmbedderBedrock, "cohere.embed-english-v3"
				c.AWS = AWS{Region: "eu-west-1", BedrockEndpoint: "http://127.0.0.1:1"}
				c.Extraction = Extraction{QueueURL: "https://sqs.example/q", QueueEndpoint: "http://127.0.0.1:19324", LocalQueueCap: 1000}
				c.Quotas.UsageTTL = time.Minute
			}, ""},
		{"limits and quotas", map[string]string{"RATE_LIMIT": "2.5", "RATE_LIMIT_BURST": "5", "CONCURRENCY_LIMIT": "0", "REQUEST_TIMEOUT": "10s",
			"HTTP_READ_TIMEOUT": "5s", "HTTP_IDLE_TIMEOUT": "1m", "QUOTA_MEMORIES": "10", "QUOTA_BYTES": "0", "QUOTA_DOCUMENTS": "2",
			"QUOTA_USAGE_TTL": "5s", "EXTRACT_QUEUE_CAP": "7", "ORG_RATE_LIMIT": "4", "QUOTA_KEYS": "3"},
			func(c *Config) {
				c.Limits = Limits{Rate: 2.5, Burst: 5, OrgRate: 4, OrgBurst: 7, Timeout: 10 * time.Second, ReadTimeout: 5 * time.Second, WriteTimeout: 40 * time.Second, IdleTimeout: time.Minute}
				c.Quotas = Quotas{Memories: 10, Documents: 2, Keys: 3, UsageTTL: 5 * time.Second}
				c.Extraction.LocalQueueCap = 7
			}, ""},
		{"write timeout within the request's", map[string]string{"REQUEST_TIMEOUT": "60s", "HTTP_WRITE_TIMEOUT": "30s"}, nil, "HTTP_WRITE_TIMEOUT"},
		{"bad rate", map[string]string{"RATE_LIMIT": "fast"}, nil, "RATE_LIMIT"},
		{"bad org rate", map[string]string{"ORG_RATE_LIMIT": "-1"}, nil, "ORG_RATE_LIMIT"},
		{"bad key quota", map[string]string{"QUOTA_KEYS": "many"}, nil, "QUOTA_KEYS"},
		{"negative quota", map[string]string{"QUOTA_MEMORIES": "-1"}, nil, "QUOTA_MEMORIES"},
		{"bad queue cap", map[string]string{"EXTRACT_QUEUE_CAP": "0"}, nil, "EXTRACT_QUEUE_CAP"},
		{"all set", map[string]string{"PORT": "9000", "ADDR": "0.0.0.0", "DATA_DIR": "/tmp/x", "API_KEYS": "k=o", "BACKEND": "EMBEDDED", "LOG_LEVEL": "debug",
			"INDEX": "opensearch", "OPENSEARCH_URL": "http://a:9200, https://b:9200", "OPENSEARCH_ALIAS": "mem", "OPENSEARCH_USERNAME": "u", "OPENSEARCH_PASSWORD": "p",
			"OPENSEARCH_SIGV4": "true", "OPENSEARCH_WRITER_ROLES": "arn:a, arn:b,", "BEDROCK_EMBED_DIMENSIONS": "256", "EMBED_SENTENCES": "false",
			"INGEST_MAX_BYTES": "1000", "INGEST_CHUNK_SIZE": "100", "INGEST_CHUNK_OVERLAP": "0",
			"CONSOLIDATE_EVERY": "0", "CONSOLIDATE_ARCHIVE_BELOW": "0.25", "CONSOLIDATE_RETENTION": "24h"},
			func(c *Config) {
				c.LogLevel, c.DataDir = slog.LevelDebug, "/tmp/x"
				c.Server = Server{Port: 9000, Addr: "0.0.0.0", APIKeys: "k=o"}
				c.Index = Index{Kind: IndexOpenSearch, OpenSearchURLs: []string{"http://a:9200", "https://b:9200"}, OpenSearchAlias: "mem",
					OpenSearchUser: "u", OpenSearchSecret: "p", OpenSearchSigV4: true, OpenSearchWriterRoles: []string{"arn:a", "arn:b"}}
				c.Embedder.BedrockDimensions, c.Embedder.Sentences = 256, false
				c.Ingest = Ingest{MaxBytes: 1000, ChunkSize: 100, ChunkOverlap: 0}
				c.Consolidation.Every, c.Consolidation.ArchiveBelow, c.Consolidation.Retention = 0, 0.25, 24*time.Hour
			}, ""},
		{"overlap not below size", map[string]string{"INGEST_CHUNK_SIZE": "100", "INGEST_CHUNK_OVERLAP": "100"}, nil, "INGEST_CHUNK_OVERLAP"},
		{"bad chunk size", map[string]string{"INGEST_CHUNK_SIZE": "ten"}, nil, "INGEST_CHUNK_SIZE"},
		{"bad half-life", map[string]string{"CONSOLIDATE_HALF_LIFE_STANDARD": "-1h"}, nil, "CONSOLIDATE_HALF_LIFE_STANDARD"},
		{"bad archive threshold", map[string]string{"CONSOLIDATE_ARCHIVE_BELOW": "2"}, nil, "CONSOLIDATE_ARCHIVE_BELOW"},
		{"bad interval", map[string]string{"CONSOLIDATE_EVERY": "daily"}, nil, "CONSOLIDATE_EVERY"},
		{"bad embedder", map[string]string{"EMBEDDER": "word2vec"}, nil, "EMBEDDER"},
		{"bad dimensions", map[string]string{"BEDROCK_EMBED_DIMENSIONS": "many"}, nil, "BEDROCK_EMBED_DIMENSIONS"},
		{"bad sentence view", map[string]string{"EMBED_SENTENCES": "sometimes"}, nil, "EMBED_SENTENCES"},
		{"bad create table", map[string]string{"DYNAMODB_CREATE_TABLE": "yes please"}, nil, "DYNAMODB_CREATE_TABLE"},
		{"bad sigv4", map[string]string{"OPENSEARCH_SIGV4": "maybe"}, nil, "OPENSEARCH_SIGV4"},
		{"release pages", map[string]string{"INDEX_RELEASE_PAGES": "true"}, func(c *Config) { c.Index.ReleasePages = true }, ""},
		{"bad release pages", map[string]string{"INDEX_RELEASE_PAGES": "often"}, nil, "INDEX_RELEASE_PAGES"},
		{"opensearch without url", map[string]string{"INDEX": "opensearch"}, nil, "OPENSEARCH_URL: required"},
		{"opensearch bad url", map[string]string{"INDEX": "opensearch", "OPENSEARCH_URL": "a:9200"}, nil, "not an http(s) URL"},
		{"bad index", map[string]string{"INDEX": "solr"}, nil, "INDEX"},
		{"ann", map[string]string{"INDEX_ANN_THRESHOLD": "-1", "INDEX_ANN_M": "24", "INDEX_ANN_EF_CONSTRUCTION": "200", "INDEX_ANN_EF_SEARCH": "64"},
			func(c *Config) { c.Index.ANN = ANN{Threshold: -1, M: 24, EfConstruction: 200, EfSearch: 64} }, ""},
		{"ann threshold zero", map[string]string{"INDEX_ANN_THRESHOLD": "0"}, nil, "INDEX_ANN_THRESHOLD"},
		{"ann threshold not a number", map[string]string{"INDEX_ANN_THRESHOLD": "lots"}, nil, "INDEX_ANN_THRESHOLD"},
		{"ann m too small", map[string]string{"INDEX_ANN_M": "2"}, nil, "INDEX_ANN_M: \"2\" is not a number of neighbours from 4 to 64"},
		{"ann ef search too wide", map[string]string{"INDEX_ANN_EF_SEARCH": "5000"}, nil, "INDEX_ANN_EF_SEARCH"},
		{"ann ef construction", map[string]string{"INDEX_ANN_EF_CONSTRUCTION": "8"}, nil, "INDEX_ANN_EF_CONSTRUCTION"},
		{"bad port", map[string]string{"PORT": "http"}, nil, "PORT"},
		{"port out of range", map[string]string{"PORT": "70000"}, nil, "PORT"},
		{"bad backend", map[string]string{"BACKEND": "mongo"}, nil, "BACKEND"},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, nil, "LOG_LEVEL"},
		{"bad access recording", map[string]string{"ACCESS_RECORDING": "later"}, nil, "ACCESS_RECORDING"},
		{"access window", map[string]string{"ACCESS_WINDOW": "10s"}, func(c *Config) { c.Service.AccessWindow = 10 * time.Second }, ""},
		{"access window off", map[string]string{"ACCESS_WINDOW": "0"}, func(c *Config) { c.Service.AccessWindow = 0 }, ""},
		{"access window too long", map[string]string{"ACCESS_WINDOW": "2m"}, nil, "ACCESS_WINDOW: 2m0s is longer than 1m0s"},
		{"access window negative", map[string]string{"ACCESS_WINDOW": "-1s"}, nil, "ACCESS_WINDOW"},
		{"search weights", map[string]string{"SEARCH_WEIGHTS": " Knowledge=0.25, keyword=2 "},
			func(c *Config) { c.Service.Weights = map[string]float64{"knowledge": 0.25, "keyword": 2} }, ""},
		{"weights: unknown list", map[string]string{"SEARCH_WEIGHTS": "vector=1"}, nil, `SEARCH_WEIGHTS: "vector" is not`},
		{"weights: no value", map[string]string{"SEARCH_WEIGHTS": "keyword"}, nil, "is not list=weight"},
		{"weights: negative", map[string]string{"SEARCH_WEIGHTS": "keyword=-1"}, nil, "not a number from 0 to 100"},
		{"weights: NaN", map[string]string{"SEARCH_WEIGHTS": "semantic=NaN"}, nil, "not a number from 0 to 100"},
		{"weights: twice", map[string]string{"SEARCH_WEIGHTS": "keyword=1,keyword=2"}, nil, "named twice"},
		{"rerank bedrock", map[string]string{"RERANKER": "bedrock", "RERANK_REGION": "us-west-2", "RERANK_CANDIDATES": "20", "RERANK_TIMEOUT": "800ms"},
			func(c *Config) {
				c.Rerank = Rerank{Kind: RerankBedrock, Model: "amazon.rerank-v1:0", Flavor: "cohere", Region: "us-west-2", Candidates: 20, Timeout: 800 * time.Millisecond}
			}, ""},
		{"rerank http tei", map[string]string{"RERANKER": "http", "RERANK_URL": "http://127.0.0.1:8081", "RERANK_FLAVOR": "tei", "RERANK_API_KEY": "s"},
			func(c *Config) {
				c.Rerank = Rerank{Kind: RerankHTTP, URL: "http://127.0.0.1:8081", APIKey: "s", Flavor: "tei", Timeout: 5 * time.Second}
			}, ""},
		{"rerank llm takes the LLM's model", map[string]string{"RERANKER": "llm", "LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:8000/v1", "LLM_MODEL": "qwen"},
			func(c *Config) {
				c.LLM = LLM{Provider: LLMOpenAI, Model: "qwen", BaseURL: "http://127.0.0.1:8000/v1", Mode: LLMModeTools, Timeout: 60 * time.Second, Queries: true}
				c.Rerank = Rerank{Kind: RerankLLM, Model: "qwen", Flavor: "cohere", Timeout: 5 * time.Second}
			}, ""},
		{"rerank http without url", map[string]string{"RERANKER": "http", "RERANK_MODEL": "m"}, nil, "RERANK_URL: required"},
		{"rerank http cohere without model", map[string]string{"RERANKER": "http", "RERANK_URL": "http://127.0.0.1:1"}, nil, "RERANK_MODEL: required"},
		{"rerank llm without a model", map[string]string{"RERANKER": "llm"}, nil, "needs a language model"},
		{"bedrock-llm on openai", map[string]string{"RERANKER": "bedrock-llm", "LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:1", "LLM_MODEL": "m"}, nil, "needs LLM_PROVIDER=bedrock"},
		{"bad reranker", map[string]string{"RERANKER": "colbert"}, nil, "RERANKER"},
		{"bad rerank candidates", map[string]string{"RERANKER": "bedrock", "RERANK_CANDIDATES": "500"}, nil, "RERANK_CANDIDATES"},
		{"bad rerank timeout", map[string]string{"RERANK_TIMEOUT": "soon"}, nil, "RERANK_TIMEOUT"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error naming %s, got %v", tc.wantErr, err)
				}
				return
			}
			want := defaults()
			tc.want(&want)
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, want)
			}
		})
	}
}

// TestLoadReportsEveryBadVariable: one start tells about every mistake,
// not the first one only.
func TestLoadReportsEveryBadVariable(t *testing.T) {
	env := map[string]string{"PORT": "http", "EMBEDDER": "word2vec", "LLM_PROVIDER": "openai", "CONSOLIDATE_EVERY": "daily"}
	_, err := Load(func(k string) string { return env[k] })
	for _, name := range []string{"PORT", "EMBEDDER", "LLM_BASE_URL", "LLM_MODEL", "CONSOLIDATE_EVERY"} {
		if err == nil || !strings.Contains(err.Error(), name+":") {
			t.Errorf("the error does not name %s: %v", name, err)
		}
	}
}

// TestAccessRecordingInLambda: in Lambda, accesses are recorded before
// answering unless told otherwise.
func TestAccessRecordingInLambda(t *testing.T) {
	for env, want := range map[string]string{"": AccessSync, "async": AccessAsync, "sync": AccessSync} {
		got, err := Load(func(k string) string {
			return map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "api", "ACCESS_RECORDING": env}[k]
		})
		if err != nil || got.Service.AccessRecording != want || !got.AWS.InLambda {
			t.Errorf("in Lambda with ACCESS_RECORDING=%q: %+v, %v; want %q", env, got.Service, err, want)
		}
	}
}

func TestLoadLLM(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    LLM
		wantErr string
	}{
		{"none by default", nil, LLM{Provider: LLMNone, Mode: LLMModeTools, Timeout: time.Minute, Queries: true}, ""},
		{"bedrock from the old variable", map[string]string{"BEDROCK_LLM_MODEL": "anthropic.claude-3-5-haiku"},
			LLM{Provider: LLMBedrock, Model: "anthropic.claude-3-5-haiku", Mode: LLMModeTools, Timeout: time.Minute, Queries: true}, ""},
		{"bedrock named", map[string]string{"LLM_PROVIDER": "Bedrock", "LLM_MODEL": "amazon.nova-lite", "LLM_TIMEOUT": "20s"},
			LLM{Provider: LLMBedrock, Model: "amazon.nova-lite", Mode: LLMModeTools, Timeout: 20 * time.Second, Queries: true}, ""},
		{"bedrock, both names agree", map[string]string{"LLM_PROVIDER": "bedrock", "LLM_MODEL": "m", "BEDROCK_LLM_MODEL": "m"},
			LLM{Provider: LLMBedrock, Model: "m", Mode: LLMModeTools, Timeout: time.Minute, Queries: true}, ""},
		{"openai-compatible", map[string]string{"LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:11434/v1",
			"LLM_MODEL": "qwen2.5:7b", "LLM_API_KEY": "secret", "LLM_MODE": "json_schema"},
			LLM{Provider: LLMOpenAI, Model: "qwen2.5:7b", BaseURL: "http://127.0.0.1:11434/v1", APIKey: "secret",
				Mode: LLMModeJSONSchema, Timeout: time.Minute, Queries: true}, ""},
		{"none despite the old variable", map[string]string{"LLM_PROVIDER": "none", "BEDROCK_LLM_MODEL": "m"},
			LLM{Provider: LLMNone, Mode: LLMModeTools, Timeout: time.Minute, Queries: true}, ""},
		{"openai without base URL", map[string]string{"LLM_PROVIDER": "openai", "LLM_MODEL": "m"}, LLM{}, "LLM_BASE_URL: required"},
		{"openai bad base URL", map[string]string{"LLM_PROVIDER": "openai", "LLM_MODEL": "m", "LLM_BASE_URL": "localhost:8000"}, LLM{}, "LLM_BASE_URL: \"localhost:8000\" is not an http(s) URL"},
		{"openai without model", map[string]string{"LLM_PROVIDER": "openai", "LLM_BASE_URL": "http://127.0.0.1:8000/v1"}, LLM{}, "LLM_MODEL: required"},
		{"bedrock without model", map[string]string{"LLM_PROVIDER": "bedrock"}, LLM{}, "LLM_MODEL: required"},
		{"bedrock, two models", map[string]string{"LLM_MODEL": "a", "BEDROCK_LLM_MODEL": "b"}, LLM{}, "different models"},
		{"bad provider", map[string]string{"LLM_PROVIDER": "mistral"}, LLM{}, "LLM_PROVIDER"},
		{"bad mode", map[string]string{"LLM_MODE": "grammar"}, LLM{}, "LLM_MODE"},
		{"bad timeout", map[string]string{"LLM_TIMEOUT": "0s"}, LLM{}, "LLM_TIMEOUT"},
		{"searches stay offline", map[string]string{"BEDROCK_LLM_MODEL": "m", "LLM_QUERIES": "false"},
			LLM{Provider: LLMBedrock, Model: "m", Mode: LLMModeTools, Timeout: time.Minute}, ""},
		{"bad queries switch", map[string]string{"LLM_QUERIES": "sometimes"}, LLM{}, "LLM_QUERIES"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := LoadLLM(func(k string) string { return tc.env[k] })
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want error naming %s, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
