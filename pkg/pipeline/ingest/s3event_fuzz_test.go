package ingest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest/ingesttest"
	"github.com/agentmem/agentmem/pkg/wiring/local"
	"github.com/aws/aws-lambda-go/events"
)

// FuzzHandleS3 fuzzes the S3 notification handler end to end on the
// embedded backend: the event's JSON, and the content of every object it
// names (content "" is an object that no longer exists). Whatever the
// input: no panic, no error (every failure of a document is its own, and
// the backend is healthy), one outcome per record with its unescaped key,
// "rejected" exactly when the key is outside the tenant layout, and an
// indexed or failed document belongs to the org and agent of its key.
func FuzzHandleS3(f *testing.F) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := local.Open(context.Background(), f.TempDir(), hashing.New(64), quiet)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { b.Close() })
	pipe := &ingest.Pipeline{Service: b.Service.Pipelines(), Records: b.Store, Splitter: ingest.Splitter{Size: 200, Overlap: 40}, Log: quiet,
		Limits: ingest.Limits{MaxFragments: 50, Timeout: 10 * time.Second}}
	for _, name := range []string{"s3-put.json", "s3-delete.json"} {
		raw, err := os.ReadFile("../../../events/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw, []byte("The office opens at nine."))
		f.Add([]byte(strings.ReplaceAll(string(raw), "acme/_org/", "acme/bot/notes%20")), []byte("# Notes\n\nagent scoped"))
		f.Add([]byte(strings.ReplaceAll(string(raw), "acme/_org/", "../")), []byte("x"))
	}
	f.Add([]byte(`{"Records":[{"eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"acme/_org/r.pdf"}}}]}`), ingesttest.CyclicPDF())
	f.Add([]byte(`{"Records":[{"eventName":"ObjectCreated:Put","s3":{"object":{"key":"acme%2F_org%2Fa+b.txt"}}},{"eventName":"Other"}]}`), []byte(""))
	f.Fuzz(func(t *testing.T, event, content []byte) {
		var ev events.S3Event
		if json.Unmarshal(event, &ev) != nil || len(ev.Records) > 8 {
			return
		}
		fetch := func(_ context.Context, _, key string) ([]byte, string, error) {
			if len(content) == 0 {
				return nil, "", memory.Errorf(memory.ENOTFOUND, "object %q not found", key)
			}
			return content, "etag", nil
		}
		outs, err := pipe.HandleS3(context.Background(), ev, fetch)
		if err != nil {
			t.Fatalf("HandleS3: %v", err)
		}
		if len(outs) != len(ev.Records) {
			t.Fatalf("%d outcomes for %d records", len(outs), len(ev.Records))
		}
		for i, o := range outs {
			r := ev.Records[i]
			key, err := url.QueryUnescape(r.S3.Object.Key)
			if err != nil {
				key = r.S3.Object.Key
			}
			c, perr := ingest.ParseKey(key)
			switch {
			case o.Key != key:
				t.Fatalf("record %d: outcome for %q, key %q", i, o.Key, key)
			case (o.Action == "rejected") != (perr != nil):
				t.Fatalf("record %d (%q): %s, parse error %v", i, key, o.Action, perr)
			case o.Action == "indexed" || o.Action == "failed":
				st := o.Status
				if st == nil || st.OrgID != c.OrgID || st.AgentID != c.AgentID || st.ID != ingest.DocumentID(c.OrgID, key) {
					t.Fatalf("record %d (%q): status %+v for caller %+v", i, key, st, c)
				}
				if o.Action == "failed" && (st.State != ingest.StateFailed || st.Reason == "") {
					t.Fatalf("record %d: failed without a reason: %+v", i, st)
				}
				if o.Action == "indexed" && (st.State != ingest.StateIndexed || st.Fragments < 1) {
					t.Fatalf("record %d: indexed without fragments: %+v", i, st)
				}
			case o.Action == "removed" && !strings.HasPrefix(r.EventName, "ObjectRemoved"):
				t.Fatalf("record %d: removed on %q", i, r.EventName)
			case o.Action != "removed" && o.Action != "skipped" && o.Action != "rejected":
				t.Fatalf("record %d: action %q", i, o.Action)
			}
		}
	})
}
