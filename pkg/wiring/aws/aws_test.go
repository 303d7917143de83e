package aws_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/wiring"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
)

// TestCapabilities: the DynamoDB store declares everything the pipelines
// need.
func TestCapabilities(t *testing.T) {
	caps := aws.Capabilities(dynamodb.New(nil, "t"))
	if err := caps.Require("every pipeline", wiring.Relations, wiring.Records, wiring.OrgListing); err != nil {
		t.Fatal(err)
	}
}

// TestOpenNeedsTheAWSAdapters: the AWS root refuses, before connecting to
// anything, a configuration that names embedded adapters.
func TestOpenNeedsTheAWSAdapters(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"embedded store", map[string]string{"INDEX": "opensearch", "OPENSEARCH_URL": "http://127.0.0.1:1"}, "BACKEND: the AWS deployment needs BACKEND=aws"},
		{"embedded index", map[string]string{"BACKEND": "aws"}, "INDEX: the AWS deployment needs INDEX=opensearch"},
		{"offline model", map[string]string{"BACKEND": "aws", "INDEX": "opensearch", "OPENSEARCH_URL": "http://127.0.0.1:1", "EMBEDDER": "onnx"},
			"EMBEDDER: \"onnx\" is not available in the AWS build"},
	}
	for _, tc := range tests {
		cfg, err := config.Load(func(k string) string { return tc.env[k] })
		if err != nil {
			t.Fatal(err)
		}
		if _, err := aws.Open(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestNewEmbedder: the AWS build has the hashing embedder, and auto falls
// back to it since the offline model is not part of the build.
func TestNewEmbedder(t *testing.T) {
	for _, kind := range []string{config.EmbedderHash, config.EmbedderAuto} {
		e, err := aws.NewEmbedder(context.Background(), config.Embedder{Kind: kind}, config.AWS{}, wiringLog(t))
		if _, ok := e.(*hashing.Embedder); err != nil || !ok {
			t.Errorf("%s: %T %v", kind, e, err)
		}
	}
}

func wiringLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}
