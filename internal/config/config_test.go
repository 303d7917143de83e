package config

import (
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    Config
		wantErr string
	}{
		{"defaults", nil, Config{Port: 8080, Addr: "127.0.0.1", DataDir: "./data", Backend: "embedded", LogLevel: slog.LevelInfo,
			Index: "embedded", OpenSearchAlias: "memories", DynamoDBTable: "agentmem", Embedder: "auto",
			BedrockModel: "amazon.titan-embed-text-v2:0", ModelDir: "/var/tmp/agentmem/models/bge-small-en-v1.5-int8", ConsolidateEvery: 24 * time.Hour,
			IngestMaxBytes: 25 << 20, IngestChunkSize: 1000, IngestChunkOverlap: 200, HalfLifeStandard: 2160 * time.Hour, HalfLifeEphemeral: 168 * time.Hour, Retention: 2160 * time.Hour, ArchiveBelow: 0.1, AccessRecording: "async"}, ""},
		{"aws", map[string]string{"BACKEND": "aws", "DYNAMODB_TABLE": "mem", "DYNAMODB_ENDPOINT": "http://127.0.0.1:18000",
			"DYNAMODB_CREATE_TABLE": "true", "EMBEDDER": "bedrock", "BEDROCK_EMBED_MODEL": "cohere.embed-english-v3", "AWS_REGION": "eu-west-1", "EXTRACT_QUEUE_URL": "https://sqs.example/q", "SQS_ENDPOINT": "http://127.0.0.1:19324"},
			Config{Port: 8080, Addr: "127.0.0.1", DataDir: "./data", Backend: "aws", LogLevel: slog.LevelInfo, Index: "embedded",
				OpenSearchAlias: "memories", DynamoDBTable: "mem", DynamoDBEndpoint: "http://127.0.0.1:18000", DynamoDBCreateTable: true,
				Embedder: "bedrock", BedrockModel: "cohere.embed-english-v3", AWSRegion: "eu-west-1", ModelDir: "/var/tmp/agentmem/models/bge-small-en-v1.5-int8", ConsolidateEvery: 24 * time.Hour,
				ExtractQueueURL: "https://sqs.example/q", SQSEndpoint: "http://127.0.0.1:19324",
				IngestMaxBytes: 25 << 20, IngestChunkSize: 1000, IngestChunkOverlap: 200, HalfLifeStandard: 2160 * time.Hour, HalfLifeEphemeral: 168 * time.Hour, Retention: 2160 * time.Hour, ArchiveBelow: 0.1, AccessRecording: "async"}, ""},
		{"overlap not below size", map[string]string{"INGEST_CHUNK_SIZE": "100", "INGEST_CHUNK_OVERLAP": "100"}, Config{}, "INGEST_CHUNK_OVERLAP"},
		{"bad chunk size", map[string]string{"INGEST_CHUNK_SIZE": "ten"}, Config{}, "INGEST_CHUNK_SIZE"},
		{"bad half-life", map[string]string{"CONSOLIDATE_HALF_LIFE_STANDARD": "-1h"}, Config{}, "CONSOLIDATE_HALF_LIFE_STANDARD"},
		{"bad archive threshold", map[string]string{"CONSOLIDATE_ARCHIVE_BELOW": "2"}, Config{}, "CONSOLIDATE_ARCHIVE_BELOW"},
		{"bad interval", map[string]string{"CONSOLIDATE_EVERY": "daily"}, Config{}, "CONSOLIDATE_EVERY"},
		{"bad embedder", map[string]string{"EMBEDDER": "openai"}, Config{}, "EMBEDDER"},
		{"bad create table", map[string]string{"DYNAMODB_CREATE_TABLE": "yes please"}, Config{}, "DYNAMODB_CREATE_TABLE"},
		{"all set", map[string]string{"PORT": "9000", "ADDR": "0.0.0.0", "DATA_DIR": "/tmp/x", "API_KEYS": "k=o", "BACKEND": "EMBEDDED", "LOG_LEVEL": "debug",
			"INDEX": "opensearch", "OPENSEARCH_URL": "http://a:9200, https://b:9200", "OPENSEARCH_ALIAS": "mem", "OPENSEARCH_USERNAME": "u", "OPENSEARCH_PASSWORD": "p"},
			Config{Port: 9000, Addr: "0.0.0.0", DataDir: "/tmp/x", APIKeys: "k=o", Backend: "embedded", LogLevel: slog.LevelDebug,
				Index: "opensearch", OpenSearchURLs: []string{"http://a:9200", "https://b:9200"}, OpenSearchAlias: "mem", OpenSearchUser: "u", OpenSearchSecret: "p",
				DynamoDBTable: "agentmem", Embedder: "auto", BedrockModel: "amazon.titan-embed-text-v2:0", ModelDir: "/var/tmp/agentmem/models/bge-small-en-v1.5-int8", ConsolidateEvery: 24 * time.Hour,
				IngestMaxBytes: 25 << 20, IngestChunkSize: 1000, IngestChunkOverlap: 200, HalfLifeStandard: 2160 * time.Hour, HalfLifeEphemeral: 168 * time.Hour, Retention: 2160 * time.Hour, ArchiveBelow: 0.1, AccessRecording: "async"}, ""},
		{"opensearch without url", map[string]string{"INDEX": "opensearch"}, Config{}, "OPENSEARCH_URL: required"},
		{"opensearch bad url", map[string]string{"INDEX": "opensearch", "OPENSEARCH_URL": "a:9200"}, Config{}, "not an http(s) URL"},
		{"bad index", map[string]string{"INDEX": "solr"}, Config{}, "INDEX"},
		{"bad port", map[string]string{"PORT": "http"}, Config{}, "PORT"},
		{"port out of range", map[string]string{"PORT": "70000"}, Config{}, "PORT"},
		{"bad backend", map[string]string{"BACKEND": "mongo"}, Config{}, "BACKEND"},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, Config{}, "LOG_LEVEL"},
		{"bad access recording", map[string]string{"ACCESS_RECORDING": "later"}, Config{}, "ACCESS_RECORDING"},
	}
	// In Lambda, accesses are recorded before answering unless told otherwise.
	for env, want := range map[string]string{"": "sync", "async": "async", "sync": "sync"} {
		got, err := Load(func(k string) string {
			return map[string]string{"AWS_LAMBDA_FUNCTION_NAME": "api", "ACCESS_RECORDING": env}[k]
		})
		if err != nil || got.AccessRecording != want {
			t.Errorf("in Lambda with ACCESS_RECORDING=%q: %q, %v; want %q", env, got.AccessRecording, err, want)
		}
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
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
