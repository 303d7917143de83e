// Package functions_test checks what each Lambda links, as make
// build-lambdas builds it (linux/arm64, no cgo, tag lambda.norpc): every
// function links the adapters it uses and none it does not.
package functions_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/layers"
)

const mod = "github.com/agentmem/agentmem/"

// What no Lambda links: the embedded adapters and the roots that open them.
var embedded = []string{
	"modernc.org/sqlite", "go.etcd.io/bbolt", "github.com/yalue/onnxruntime_go",
	mod + "pkg/store/sqlite", mod + "pkg/index/bolt", mod + "pkg/embed/onnx", mod + "pkg/wiring/local", mod + "pkg/wiring/server",
	// memoryd's Prometheus endpoint, and gRPC and protobuf, which the
	// OpenTelemetry OTLP exporter module would bring (telemetry/otlp
	// exports JSON instead: the Lambdas stay about 11 MB smaller).
	"github.com/prometheus/client_golang", "google.golang.org/grpc", "google.golang.org/protobuf", mod + "pkg/telemetry/prom",
}

// Adapters and pipelines, by what they are.
const (
	pdf         = "github.com/ledongthuc/pdf"
	openSearch  = "github.com/opensearch-project/opensearch-go/v4"
	bedrock     = "github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	dynamoDB    = "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	s3          = "github.com/aws/aws-sdk-go-v2/service/s3"
	sqs         = "github.com/aws/aws-sdk-go-v2/service/sqs"
	secrets     = "github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	apiGateway  = "github.com/aws/aws-sdk-go-v2/service/apigateway"
	lambda      = "github.com/aws/aws-lambda-go/lambda"
	ingest      = mod + "pkg/pipeline/ingest"
	extract     = mod + "pkg/pipeline/extract"
	consolidate = mod + "pkg/pipeline/consolidate"
)

// tolerated are links to a forbidden module that arrive only through one
// third-party package, with the reason. Each must still be needed: the test
// fails when one no longer is, so that it is removed.
var tolerated = []struct{ module, via, why string }{}

func TestLambdasLinkOnlyWhatTheyUse(t *testing.T) {
	tests := []struct {
		fn      string
		must    []string
		mustNot []string
	}{
		{"api", []string{lambda, openSearch, dynamoDB, bedrock, sqs, secrets, ingest, consolidate, mod + "pkg/transport/httpapi", mod + "pkg/transport/mcp", mod + "pkg/wiring/rerank"},
			[]string{s3, mod + "pkg/wiring/extraction"}},
		{"authorizer", []string{lambda, dynamoDB, secrets, apiGateway, mod + "pkg/auth", mod + "pkg/transport/authorizer"},
			[]string{pdf, openSearch, bedrock, s3, sqs, mod + "pkg/service", mod + "pkg/pipeline", mod + "pkg/transport/httpapi", mod + "pkg/wiring"}},
		{"ingest", []string{lambda, openSearch, dynamoDB, bedrock, s3, pdf, ingest},
			[]string{sqs, secrets, extract, consolidate, mod + "pkg/transport"}},
		{"extract", []string{lambda, openSearch, dynamoDB, bedrock, extract, mod + "pkg/wiring/llm"},
			[]string{pdf, s3, sqs, secrets, ingest, consolidate, mod + "pkg/transport"}},
		{"consolidate", []string{lambda, openSearch, dynamoDB, bedrock, consolidate},
			[]string{pdf, s3, sqs, secrets, ingest, extract, mod + "pkg/transport"}},
	}
	g := importGraph(t)
	used := make([]bool, len(tolerated))
	for _, tc := range tests {
		t.Run(tc.fn, func(t *testing.T) {
			root := mod + "functions/" + tc.fn
			if _, ok := g.Graph[root]; !ok {
				t.Fatalf("go list did not list %s", root)
			}
			parent := g.Reach(root)
			for _, m := range tc.must {
				if len(linked(parent, m)) == 0 {
					t.Errorf("links no %s, which it uses", m)
				}
			}
		forbidden:
			for _, m := range append(tc.mustNot, embedded...) {
				got := linked(parent, m)
				if len(got) == 0 {
					continue
				}
				for i, tol := range tolerated {
					if tol.module == m && g.onlyVia(parent, got, tol.via) {
						used[i] = true
						t.Logf("links %s, tolerated: %s", m, tol.why)
						continue forbidden
					}
				}
				t.Errorf("links %s, which it does not use: %s", m, path(parent, got[0]))
			}
		})
	}
	for i, tol := range tolerated {
		if !used[i] {
			t.Errorf("no Lambda links %s through %s any more: remove it from tolerated", tol.module, tol.via)
		}
	}
}

// importGraph lists the imports of every package the functions link, as
// the Lambda build sees them.
func importGraph(t *testing.T) graph {
	t.Helper()
	g, err := layers.List(".", []string{"GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=0"}, []string{"-tags", "lambda.norpc"},
		"./api", "./authorizer", "./ingest", "./extract", "./consolidate")
	if err != nil {
		t.Fatal(err)
	}
	return graph{g}
}

// graph is the import graph with the checks of this test.
type graph struct{ layers.Graph }

// onlyVia reports whether every package of pkgs that is imported from
// outside pkgs is imported by via only.
func (g graph) onlyVia(reached map[string]string, pkgs []string, via string) bool {
	in := map[string]bool{}
	for _, p := range pkgs {
		in[p] = true
	}
	for p := range reached {
		if in[p] {
			continue
		}
		for _, q := range g.Graph[p] {
			if in[q] && p != via {
				return false
			}
		}
	}
	return true
}

// path renders how root reaches p.
func path(parent map[string]string, p string) string { return layers.Path(parent, p, mod) }

// linked returns the packages of reached that are m or under m.
func linked(reached map[string]string, m string) []string {
	var out []string
	for p := range reached {
		if p == m || strings.HasPrefix(p, m+"/") {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
