// Command capacity measures the DynamoDB read and write capacity units each
// API operation consumes, as the API Lambda serves it: the AWS backend
// (wiring/aws: the DynamoDB store, the OpenSearch index, hashing vectors
// of Titan's size) behind the HTTP API, in process, against DynamoDB Local
// and a local OpenSearch. Every DynamoDB call asks for its consumed
// capacity (dynamodb.Capacity) and the units are summed per API call,
// averaged over -n calls; it prints a Markdown table and a monthly cost per
// million calls at the on-demand prices given by -rru-price and
// -wru-price. make bench-capacity runs it (docs/aws.md has the results).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
)

func main() {
	var o options
	flag.StringVar(&o.endpoint, "dynamodb", envOr("DYNAMODB_ENDPOINT", "http://127.0.0.1:28000"), "DynamoDB Local")
	flag.StringVar(&o.opensearch, "opensearch", envOr("OPENSEARCH_URL", "http://127.0.0.1:29200"), "OpenSearch node")
	flag.IntVar(&o.calls, "n", 5, "calls per operation, averaged")
	flag.IntVar(&o.seed, "seed-memories", 100, "memories in the org before the measured calls")
	flag.IntVar(&o.dims, "dims", 1024, "embedding dimensions (Titan Text Embeddings V2's default: 1024)")
	flag.Float64Var(&o.rruPrice, "rru-price", 0.125, "USD per million read request units (on-demand, us-east-1)")
	flag.Float64Var(&o.wruPrice, "wru-price", 0.625, "USD per million write request units (on-demand, us-east-1)")
	flag.StringVar(&o.only, "only", "", "measure only the operations whose name contains this")
	flag.Parse()
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "capacity:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
