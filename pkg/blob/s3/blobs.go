// Package s3 reads and writes document blobs in Amazon S3 (aws-sdk-go-v2):
// the files the ingestion pipeline loads. Reads are bounded by a size limit
// so that one large object cannot exhaust a Lambda's memory.
package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/internal/awsconf"
	"io"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// Object describes a stored object.
type Object struct {
	Key          string
	Size         int64
	ETag         string
	ContentType  string
	LastModified time.Time
}

// Blobs is a bucket. It is safe for concurrent use.
type Blobs struct {
	c      *s3.Client
	bucket string
	// MaxBytes bounds Get (default 25 MiB); larger objects are ETOOLARGE.
	MaxBytes int64
}

// DefaultMaxBytes is the default read limit.
const DefaultMaxBytes = 25 << 20

// New returns Blobs over bucket.
func New(c *s3.Client, bucket string) *Blobs {
	return &Blobs{c: c, bucket: bucket, MaxBytes: DefaultMaxBytes}
}

// ClientOptions configures NewClient.
type ClientOptions struct {
	Endpoint             string // S3-compatible server or LocalStack; empty for AWS
	Region               string
	AccessKey, SecretKey string // static credentials for local servers
}

// NewClient returns an S3 client; with an endpoint it uses path-style
// addressing, as local S3 servers expect.
func NewClient(ctx context.Context, o ClientOptions) (*s3.Client, error) {
	cfg, err := awsconf.Load(ctx, awsconf.Options{Endpoint: o.Endpoint, Region: o.Region, AccessKey: o.AccessKey, SecretKey: o.SecretKey})
	if err != nil {
		return nil, fmt.Errorf("s3: client: %w", err)
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
			so.UsePathStyle = true
		}
	}), nil
}

func notFound(err error) bool {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	var api smithy.APIError
	return errors.As(err, &nsk) || errors.As(err, &nf) ||
		(errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound"))
}

// Head returns an object's metadata; ENOTFOUND if absent.
func (b *Blobs) Head(ctx context.Context, key string) (Object, error) {
	res, err := b.c.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	if notFound(err) {
		return Object{}, memory.Errorf(memory.ENOTFOUND, "object %q not found", key)
	} else if err != nil {
		return Object{}, fmt.Errorf("s3: head %s: %w", key, err)
	}
	return Object{Key: key, Size: aws.ToInt64(res.ContentLength), ETag: aws.ToString(res.ETag),
		ContentType: aws.ToString(res.ContentType), LastModified: aws.ToTime(res.LastModified)}, nil
}

// Get reads a whole object of at most MaxBytes: ENOTFOUND if absent,
// ETOOLARGE if bigger (checked before and while reading).
func (b *Blobs) Get(ctx context.Context, key string) ([]byte, Object, error) {
	res, err := b.c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	if notFound(err) {
		return nil, Object{}, memory.Errorf(memory.ENOTFOUND, "object %q not found", key)
	} else if err != nil {
		return nil, Object{}, fmt.Errorf("s3: get %s: %w", key, err)
	}
	defer res.Body.Close()
	obj := Object{Key: key, Size: aws.ToInt64(res.ContentLength), ETag: aws.ToString(res.ETag),
		ContentType: aws.ToString(res.ContentType), LastModified: aws.ToTime(res.LastModified)}
	if obj.Size > b.MaxBytes {
		return nil, obj, memory.Errorf(memory.ETOOLARGE, "object %q is %d bytes, over the limit of %d", key, obj.Size, b.MaxBytes)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, b.MaxBytes+1))
	if err != nil {
		return nil, obj, fmt.Errorf("s3: read %s: %w", key, err)
	}
	if int64(len(data)) > b.MaxBytes {
		return nil, obj, memory.Errorf(memory.ETOOLARGE, "object %q is over the limit of %d bytes", key, b.MaxBytes)
	}
	return data, obj, nil
}

// Put writes an object.
func (b *Blobs) Put(ctx context.Context, key string, data []byte, contentType string) error {
	_, err := b.c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key),
		Body: bytes.NewReader(data), ContentType: aws.String(contentType)})
	if err != nil {
		return fmt.Errorf("s3: put %s: %w", key, err)
	}
	return nil
}

// Delete removes an object (absent objects are not an error, as in S3).
func (b *Blobs) Delete(ctx context.Context, key string) error {
	_, err := b.c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.bucket), Key: aws.String(key)})
	if err != nil {
		return fmt.Errorf("s3: delete %s: %w", key, err)
	}
	return nil
}

// List returns every object under prefix, following continuation tokens.
func (b *Blobs) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	p := s3.NewListObjectsV2Paginator(b.c, &s3.ListObjectsV2Input{Bucket: aws.String(b.bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("s3: list %s: %w", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, Object{Key: aws.ToString(o.Key), Size: aws.ToInt64(o.Size), ETag: aws.ToString(o.ETag),
				LastModified: aws.ToTime(o.LastModified)})
		}
	}
	return out, nil
}

// CreateBucket creates the bucket if it does not exist (local servers).
func (b *Blobs) CreateBucket(ctx context.Context) error {
	_, err := b.c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.bucket)})
	var owned *types.BucketAlreadyOwnedByYou
	var exists *types.BucketAlreadyExists
	if err != nil && !errors.As(err, &owned) && !errors.As(err, &exists) {
		return fmt.Errorf("s3: create bucket %s: %w", b.bucket, err)
	}
	return nil
}
