package s3_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/blob/s3"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// newBlobs returns Blobs over a fresh bucket: on S3_ENDPOINT when set (for
// example LocalStack), else on an S3-compatible server (gofakes3, in
// memory) started on a loopback port; either way over HTTP.
func newBlobs(t *testing.T) *s3.Blobs {
	t.Helper()
	endpoint := os.Getenv("S3_ENDPOINT")
	if endpoint == "" {
		srv := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
		t.Cleanup(srv.Close)
		endpoint = srv.URL
	}
	c, err := s3.NewClient(context.Background(), s3.ClientOptions{Endpoint: endpoint, AccessKey: "local", SecretKey: "local"})
	if err != nil {
		t.Fatal(err)
	}
	b := s3.New(c, fmt.Sprintf("documents-%d", time.Now().UnixNano()))
	if err := b.CreateBucket(context.Background()); err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBlobs(t *testing.T) {
	ctx := context.Background()
	b := newBlobs(t)
	b.MaxBytes = 1024
	doc := []byte("# Handbook\n\nVacation requests go to HR two weeks ahead.")
	if err := b.Put(ctx, "acme/_org/handbook.md", doc, "text/markdown"); err != nil {
		t.Fatal(err)
	}
	got, obj, err := b.Get(ctx, "acme/_org/handbook.md")
	if err != nil || !bytes.Equal(got, doc) || obj.Size != int64(len(doc)) || obj.ETag == "" {
		t.Fatalf("get: %q %+v %v", got, obj, err)
	}
	head, err := b.Head(ctx, "acme/_org/handbook.md")
	if err != nil || head.Size != int64(len(doc)) || head.ContentType != "text/markdown" {
		t.Fatalf("head: %+v %v", head, err)
	}
	if _, _, err := b.Get(ctx, "acme/_org/missing.md"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("missing object: %v", err)
	}
	if _, err := b.Head(ctx, "acme/_org/missing.md"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("head of a missing object: %v", err)
	}
	big := bytes.Repeat([]byte("x"), 1025)
	if err := b.Put(ctx, "acme/_org/big.txt", big, "text/plain"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Get(ctx, "acme/_org/big.txt"); memory.ErrorCode(err) != memory.ETOOLARGE {
		t.Fatalf("object over the limit: %v", err)
	}
	// List follows pages (the server returns at most 1000 per page).
	for i := 0; i < 1005; i++ {
		if err := b.Put(ctx, fmt.Sprintf("acme/bot/f%04d.txt", i), []byte("x"), "text/plain"); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := b.List(ctx, "acme/bot/")
	if err != nil || len(objs) != 1005 {
		t.Fatalf("list: %d objects, %v", len(objs), err)
	}
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	if !sort.StringsAreSorted(keys) || keys[0] != "acme/bot/f0000.txt" {
		t.Fatalf("list order: %v", keys[:3])
	}
	if err := b.Delete(ctx, "acme/_org/handbook.md"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := b.Get(ctx, "acme/_org/handbook.md"); memory.ErrorCode(err) != memory.ENOTFOUND {
		t.Fatalf("after delete: %v", err)
	}
}
