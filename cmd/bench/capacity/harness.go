package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/dynamodb"
	"github.com/agentmem/agentmem/pkg/wiring/api"
	"github.com/agentmem/agentmem/pkg/wiring/aws"
)

// options are the command's flags.
type options struct {
	endpoint, opensearch string
	calls, seed, dims    int
	rruPrice, wruPrice   float64
	only                 string
}

// harness is the API Lambda's composition in process: the AWS backend on
// a counting DynamoDB client, the HTTP API over it, and a key per org.
type harness struct {
	meter   *dynamodb.Capacity
	backend *aws.Backend
	handler http.Handler
	keys    map[string]string // org -> bearer key
	close   func()
}

// importOrgs is how many fresh orgs the import operation may fill, one
// per call.
const importOrgs = 100

// open creates a fresh table and alias and composes the API over them as
// functions/api does, without the SQS queue (extraction jobs are dropped:
// the extract function's units are not the API's) and with fixed keys in
// place of the authorizer (whose lookup is measured on its own).
func open(ctx context.Context, o options) (*harness, error) {
	suffix := randomHex(4)
	table, alias := "bench-capacity-"+suffix, "bench-capacity-"+suffix
	meter := &dynamodb.Capacity{}
	c, err := dynamodb.NewClient(ctx, dynamodb.ClientOptions{Endpoint: o.endpoint, AccessKey: "local", SecretKey: "local", Capacity: meter})
	if err != nil {
		return nil, err
	}
	if err := dynamodb.CreateTable(ctx, c, table); err != nil {
		return nil, err
	}
	env := map[string]string{"BACKEND": "aws", "INDEX": "opensearch", "EMBEDDER": "hash", "ACCESS_RECORDING": "sync",
		"DYNAMODB_TABLE": table, "DYNAMODB_ENDPOINT": o.endpoint, "OPENSEARCH_URL": o.opensearch, "OPENSEARCH_ALIAS": alias,
		"AWS_REGION": "us-east-1"}
	cfg, err := config.Load(func(k string) string { return env[k] })
	if err != nil {
		dynamodb.DeleteTable(ctx, c, table)
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := aws.OpenWith(ctx, cfg, dynamodb.New(c, table), hashing.New(o.dims), log)
	if err != nil {
		dynamodb.DeleteTable(ctx, c, table)
		return nil, err
	}
	h := &harness{meter: meter, backend: b, keys: map[string]string{}}
	var spec []string
	for _, org := range append([]string{orgMain, orgSource}, importOrgNames()...) {
		h.keys[org] = "bench-" + randomHex(16)
		spec = append(spec, h.keys[org]+"="+org)
	}
	km, err := auth.ParseKeys(strings.Join(spec, ","))
	if err != nil {
		return nil, err
	}
	parts := api.Parts{Service: b.Service, Quotas: api.Quotas(cfg.Quotas, b.Store, b.Store), MaxKeys: cfg.Quotas.Keys,
		Knowledge: b.Knowledge, Registry: b.Registry, Workstreams: b.Workstreams,
		Settings: service.NewSettingsStore(b.Caps.Records), Keys: b.Store, Idempotency: b.Store.Idempotency(),
		Extraction: dropJobs{}}
	h.handler = api.New(parts, km, log)
	h.close = func() {
		b.Close()
		b.Index.DeleteAll(context.Background())
		dynamodb.DeleteTable(context.Background(), c, table)
	}
	return h, nil
}

// The orgs: the one every operation works in, the one the import file is
// exported from, and one per import call (an import of ids that exist
// already writes nothing).
const (
	orgMain   = "bench-org"
	orgSource = "bench-source"
)

func importOrgNames() []string {
	out := make([]string, importOrgs)
	for i := range out {
		out[i] = fmt.Sprintf("bench-import-%d", i)
	}
	return out
}

// dropJobs is an extraction queue that drops the jobs: POST /v1/messages
// is measured up to the queue, as the API function does it.
type dropJobs struct{}

func (dropJobs) Enqueue(context.Context, memory.ExtractionJob) error { return nil }

// call sends one API request as org's key and decodes the JSON answer
// into out (nil: discarded); an answer of 300 or more is an error.
func (h *harness) call(org, method, path string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		rd = bytes.NewReader(b)
	default:
		js, err := json.Marshal(b)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(js)
	}
	req := httptest.NewRequest(method, path, rd)
	req.Header.Set("Authorization", "Bearer "+h.keys[org])
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.handler.ServeHTTP(rec, req)
	if rec.Code >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, rec.Code, strings.TrimSpace(rec.Body.String()))
	}
	if out == nil {
		return nil
	}
	if dst, ok := out.(*[]byte); ok {
		*dst = rec.Body.Bytes()
		return nil
	}
	return json.Unmarshal(rec.Body.Bytes(), out)
}

// settle waits until no DynamoDB call is in flight and none started for
// quiet, so that what a call left running is counted with it.
func (h *harness) settle(quiet time.Duration) {
	last, _ := h.meter.Used()
	still := time.Now()
	for time.Since(still) < quiet {
		time.Sleep(5 * time.Millisecond)
		u, inFlight := h.meter.Used()
		if inFlight > 0 || totalCalls(u) != totalCalls(last) {
			last, still = u, time.Now()
		}
	}
}

func totalCalls(u dynamodb.CapacityUsed) int {
	n := 0
	for _, c := range u.Calls {
		n += c
	}
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
