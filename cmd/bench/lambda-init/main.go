// Command lambda-init measures each Lambda's cold start: every function
// of functions/ built as make build-lambdas builds it, but for this
// machine's architecture, started -runs times against DynamoDB Local and
// a local OpenSearch (the AWS backend, hashing vectors). A fake Lambda
// Runtime API served here (the documented invocation protocol) times the
// process from exec to its first GET .../invocation/next (init) and to its
// first response. With -rie, each start is made once more under AWS's
// Lambda runtime interface emulator (built from its Go module: make
// bench-lambda-init does it), whose REPORT line gives the Duration from the
// process's start to the answer (the emulator starts the runtime at the
// first invocation and reports an Init Duration of about 0). It prints the
// medians as a Markdown table (docs/benchmarks.md).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	var o options
	flag.StringVar(&o.rie, "rie", "", "the aws-lambda-rie binary: each start is measured once more under it (empty: the fake Runtime API only)")
	flag.StringVar(&o.endpoint, "dynamodb", envOr("DYNAMODB_ENDPOINT", "http://127.0.0.1:28000"), "DynamoDB Local")
	flag.StringVar(&o.opensearch, "opensearch", envOr("OPENSEARCH_URL", "http://127.0.0.1:29200"), "OpenSearch node")
	flag.IntVar(&o.runs, "runs", 5, "cold starts per function (the median is reported), after one warm-up start")
	fns := flag.String("functions", "api,authorizer,ingest,extract,consolidate", "comma-separated functions of functions/")
	flag.Parse()
	o.functions = strings.Split(*fns, ",")
	if err := run(context.Background(), o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lambda-init:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
