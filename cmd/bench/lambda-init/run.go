package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/agentmem/agentmem/pkg/store/dynamodb"
)

// options are the command's flags.
type options struct {
	rie, endpoint, opensearch string
	runs                      int
	functions                 []string
}

// events are the first invocation of each function: requests it answers
// without any service but DynamoDB and OpenSearch (files of events/, or
// inline).
var events = map[string]string{
	"api":         "events/apigw-list-memories.json",
	"authorizer":  "",
	"ingest":      "events/s3-delete.json",
	"extract":     "events/sqs-extract.json",
	"consolidate": "events/eventbridge-scheduled.json",
}

// authorizerEvent asks the authorizer about a key no one holds: one key
// lookup, then a deny.
const authorizerEvent = `{"type":"REQUEST","methodArn":"arn:aws:execute-api:us-east-1:123456789012:abc/prod/GET/v1/memories",` +
	`"headers":{"Authorization":"Bearer bench-no-such-key-0123456789"}}`

// timing is one cold start: init (exec to the first request for an
// event), the first invocation, both (wall), and the emulator's Duration
// of a start under it (0 without it).
type timing struct{ init, invoke, wall, rie time.Duration }

// run builds the functions, creates the table and measures.
func run(ctx context.Context, o options, w io.Writer) error {
	dir, err := os.MkdirTemp("", "lambda-init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := make([]byte, 4)
	rand.Read(b)
	name := "bench-lambda-init-" + hex.EncodeToString(b)
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: o.endpoint, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		return err
	}
	if err := dynamodb.CreateTable(ctx, c, name); err != nil {
		return err
	}
	defer dynamodb.DeleteTable(context.Background(), c, name)
	defer deleteIndices(o.opensearch, name)
	env := append(os.Environ(), "BACKEND=aws", "INDEX=opensearch", "EMBEDDER=hash", "DYNAMODB_TABLE="+name,
		"DYNAMODB_ENDPOINT="+o.endpoint, "OPENSEARCH_URL="+o.opensearch, "OPENSEARCH_ALIAS="+name, "AWS_REGION=us-east-1",
		"AWS_ACCESS_KEY_ID=local", "AWS_SECRET_ACCESS_KEY=local", "AWS_LAMBDA_FUNCTION_NAME=bench", "LOG_LEVEL=warn")
	how := "a fake Runtime API served here (exec to first next: init; to first response: start to first answer)"
	if o.rie != "" {
		how += ", and AWS's runtime interface emulator (the Duration of its REPORT line, which starts the process at the first invocation)"
	}
	fmt.Fprintf(w, "# bench-lambda-init: %s/%s, %s, %d CPUs; %s; median of %d cold starts after one warm-up\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.Version(), runtime.NumCPU(), how, o.runs)
	fmt.Fprintln(w, "| function | binary MB | init ms (median) | init ms (min–max) | first invoke ms (median) | start to first answer ms (median) | under the emulator ms (median) |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|")
	for _, fn := range o.functions {
		bin, size, err := build(dir, fn)
		if err != nil {
			return err
		}
		event, err := eventOf(fn)
		if err != nil {
			return err
		}
		var ts []timing
		for i := 0; i <= o.runs; i++ {
			t, err := coldStart(ctx, o, bin, env, event)
			if err != nil {
				return fmt.Errorf("%s: %w", fn, err)
			}
			if i > 0 { // the first start created the index alias
				ts = append(ts, t)
			}
		}
		inits := durations(ts, func(t timing) time.Duration { return t.init })
		rie := "–"
		if o.rie != "" {
			rie = fmt.Sprintf("%.0f", ms(median(durations(ts, func(t timing) time.Duration { return t.rie }))))
		}
		fmt.Fprintf(w, "| %s | %.1f | %.0f | %.0f–%.0f | %.0f | %.0f | %s |\n", fn, float64(size)/(1<<20), ms(median(inits)),
			ms(inits[0]), ms(inits[len(inits)-1]), ms(median(durations(ts, func(t timing) time.Duration { return t.invoke }))),
			ms(median(durations(ts, func(t timing) time.Duration { return t.wall }))), rie)
	}
	return nil
}

// build compiles functions/fn as make build-lambdas does, for this
// machine.
func build(dir, fn string) (string, int64, error) {
	out := filepath.Join(dir, fn, "bootstrap")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s", "-tags", "lambda.norpc", "-o", out, "./functions/"+fn)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return "", 0, fmt.Errorf("build %s: %v: %s", fn, err, stderr.String())
	}
	st, err := os.Stat(out)
	if err != nil {
		return "", 0, err
	}
	return out, st.Size(), nil
}

func eventOf(fn string) ([]byte, error) {
	path, ok := events[fn]
	if !ok {
		return nil, fmt.Errorf("no event for function %q", fn)
	}
	if path == "" {
		return []byte(authorizerEvent), nil
	}
	return os.ReadFile(path)
}

func durations(ts []timing, f func(timing) time.Duration) []time.Duration {
	out := make([]time.Duration, len(ts))
	for i, t := range ts {
		out[i] = f(t)
	}
	slices.Sort(out)
	return out
}

func median(d []time.Duration) time.Duration { return d[len(d)/2] }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
