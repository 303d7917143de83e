package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/aws/aws-lambda-go/events"
)

// HandleAPIGateway serves one API Gateway REST API proxy event. The caller
// is taken only from the authorizer context (orgId, agentId, grants, and an
// end-user token's userId, roomId, worldId and expiry: auth.CallerOfContext);
// a bearer key in the request is never consulted here, so a request that
// did not pass the authorizer gets 401.
func (s *Server) HandleAPIGateway(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	req, err := s.toHTTP(ctx, ev)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	rec := newRecorder()
	s.ServeHTTP(rec, req)
	return rec.response(), nil
}

func (s *Server) toHTTP(ctx context.Context, ev events.APIGatewayProxyRequest) (*http.Request, error) {
	c, err := auth.CallerOfContext(ev.RequestContext.Authorizer, time.Now())
	ctx = withCaller(ctx, c, err) // no org fails Valid(): 401
	if ev.RequestContext.RequestID != "" {
		ctx = context.WithValue(ctx, requestIDKey, ev.RequestContext.RequestID)
	}
	body := []byte(ev.Body)
	if ev.IsBase64Encoded {
		b, err := base64.StdEncoding.DecodeString(ev.Body)
		if err != nil {
			return nil, fmt.Errorf("apigateway: body is not base64: %w", err)
		}
		body = b
	}
	q := url.Values{}
	if len(ev.MultiValueQueryStringParameters) > 0 {
		for k, vs := range ev.MultiValueQueryStringParameters {
			q[k] = append(q[k], vs...)
		}
	} else {
		for k, v := range ev.QueryStringParameters {
			q.Set(k, v)
		}
	}
	path := ev.Path
	if path == "" {
		path = "/"
	}
	if base := basePath(ev.RequestContext.Path, path); base != "" {
		ctx = context.WithValue(ctx, basePathKey{}, base)
	}
	u := &url.URL{Path: path, RawQuery: q.Encode()}
	req, err := http.NewRequestWithContext(ctx, ev.HTTPMethod, u.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("apigateway: %w", err)
	}
	if len(ev.MultiValueHeaders) > 0 {
		for k, vs := range ev.MultiValueHeaders {
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	} else {
		for k, v := range ev.Headers {
			req.Header.Set(k, v)
		}
	}
	req.RemoteAddr = ev.RequestContext.Identity.SourceIP
	return req, nil
}

// basePathKey carries the path the API is served under (an API Gateway
// stage, "/dev"), for the redirects that must stay under it.
type basePathKey struct{}

// basePath is what API Gateway's full request path (the stage and a custom
// domain's base path included) holds before the path the function serves:
// "/dev" for "/dev/ui" and "/ui"; "" when there is none, or it is not
// plain path segments.
func basePath(full, path string) string {
	base, ok := strings.CutSuffix(full, path)
	if !ok || base == "" || !strings.HasPrefix(base, "/") {
		return ""
	}
	for _, seg := range strings.Split(base[1:], "/") {
		if seg == "" || strings.Trim(seg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~") != "" {
			return ""
		}
	}
	return base
}

// requestBasePath is the base path of r ("" outside API Gateway).
func requestBasePath(r *http.Request) string {
	b, _ := r.Context().Value(basePathKey{}).(string)
	return b
}

// recorder is a minimal http.ResponseWriter that buffers the response.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

func (r *recorder) response() events.APIGatewayProxyResponse {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	res := events.APIGatewayProxyResponse{
		StatusCode:        r.status,
		Headers:           map[string]string{},
		MultiValueHeaders: map[string][]string{},
		Body:              r.body.String(),
	}
	for k, vs := range r.header {
		if len(vs) == 1 {
			res.Headers[k] = vs[0]
		} else {
			res.MultiValueHeaders[k] = vs
		}
	}
	return res
}
