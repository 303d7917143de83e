package ingest

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-lambda-go/events"
)

// Fetch reads an object: its bytes and ETag; ENOTFOUND if it is gone.
type Fetch func(ctx context.Context, bucket, key string) ([]byte, string, error)

// Outcome reports what HandleS3 did with one record.
type Outcome struct {
	Key    string  `json:"key"`
	Action string  `json:"action"` // indexed, failed, removed, rejected, skipped
	Status *Status `json:"status,omitempty"`
	Reason string  `json:"reason,omitempty"`
}

// HandleS3 processes an S3 notification: ObjectCreated ingests the object,
// ObjectRemoved deletes its document. A key outside the
// {orgId}/{agentId or _org}/{path} layout is rejected and logged, never
// attributed to a guessed tenant. Documents that cannot be loaded are
// recorded as failed and not retried; transient errors (the object store,
// the embedder, the index) are returned so that the event is delivered
// again, which is safe because ingestion is idempotent.
func (p *Pipeline) HandleS3(ctx context.Context, ev events.S3Event, fetch Fetch) ([]Outcome, error) {
	var outs []Outcome
	var errs []error
	for _, r := range ev.Records {
		key, err := url.QueryUnescape(r.S3.Object.Key)
		if err != nil {
			key = r.S3.Object.Key
		}
		c, err := ParseKey(key)
		if err != nil {
			p.log().ErrorContext(ctx, "object rejected", "bucket", r.S3.Bucket.Name, "key", key, "reason", memory.ErrorMessage(err))
			outs = append(outs, Outcome{Key: key, Action: "rejected", Reason: memory.ErrorMessage(err)})
			continue
		}
		switch {
		case strings.HasPrefix(r.EventName, "ObjectCreated"):
			data, etag, err := fetch(ctx, r.S3.Bucket.Name, key)
			if memory.IsNotFound(err) {
				outs = append(outs, Outcome{Key: key, Action: "skipped", Reason: "the object no longer exists"})
				continue
			}
			if err != nil {
				errs = append(errs, err)
				continue
			}
			st, err := p.Ingest(ctx, c, key, data, etag)
			switch code := memory.ErrorCode(err); {
			case err == nil:
				outs = append(outs, Outcome{Key: key, Action: "indexed", Status: &st})
			case code == memory.EINVALID || code == memory.ETOOLARGE:
				outs = append(outs, Outcome{Key: key, Action: "failed", Status: &st, Reason: st.Reason})
			default:
				errs = append(errs, err)
			}
		case strings.HasPrefix(r.EventName, "ObjectRemoved"):
			n, err := p.Remove(ctx, c, key)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			outs = append(outs, Outcome{Key: key, Action: "removed", Reason: strconvItoa(n) + " memories deleted"})
		default:
			outs = append(outs, Outcome{Key: key, Action: "skipped", Reason: "event " + r.EventName})
		}
	}
	return outs, errors.Join(errs...)
}

// FileFetch reads objects from a directory (dir/key), for running the
// handler locally without S3. A key that is not a clean path ("a/../b",
// "a//b", "./a") names no file of its own: it is ENOTFOUND, never the
// file its cleaned form names (which may lie in another tenant's folder).
func FileFetch(dir string) Fetch {
	return func(_ context.Context, _ string, key string) ([]byte, string, error) {
		clean := filepath.Clean("/" + key)
		if clean != "/"+key || strings.ContainsRune(key, '\\') {
			return nil, "", memory.Errorf(memory.ENOTFOUND, "object %q not found", key)
		}
		data, err := os.ReadFile(filepath.Join(dir, clean))
		if errors.Is(err, os.ErrNotExist) {
			return nil, "", memory.Errorf(memory.ENOTFOUND, "object %q not found", key)
		}
		return data, "", err
	}
}
