package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The API's error codes, the stable identifiers an Error carries.
const (
	CodeInvalid            = "invalid"
	CodeUnauthorized       = "unauthorized"
	CodeForbidden          = "forbidden"
	CodeNotFound           = "not_found"
	CodeMethodNotAllowed   = "method_not_allowed"
	CodeConflict           = "conflict"
	CodePreconditionFailed = "precondition_failed"
	CodeTooLarge           = "too_large"
	CodeQuotaExceeded      = "quota_exceeded"
	CodeRateLimited        = "rate_limited"
	CodeUnavailable        = "unavailable"
	CodeInternal           = "internal"
)

// problemTypeBase prefixes an RFC 9457 problem type naming a code.
const problemTypeBase = "urn:agentmem:problem:"

// Error is an error answered by the API. It reads both shapes the server
// has answered with: RFC 9457 application/problem+json ({type, title,
// status, detail, instance, code, requestId}) and the earlier
// {"error": {"code", "message"}}.
type Error struct {
	// Op is the client operation that failed ("client.Get").
	Op string
	// Status is the HTTP status.
	Status int
	// Code is the API's error code (CodeNotFound, ...): from the body's
	// code, else from a problem type naming it, else from the status.
	Code string
	// Message is what went wrong, naming the field at fault for invalid
	// input: the problem's detail, or the earlier body's message.
	Message string
	// Type, Title and Instance are the problem's members (empty in the
	// earlier shape).
	Type, Title, Instance string
	// RequestID identifies the request in the server's logs: the body's
	// requestId, else the X-Request-Id header.
	RequestID string
	// RetryAfter is the server's Retry-After, zero without one.
	RetryAfter time.Duration
}

// Error returns "op: status code: message (request id)".
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op + ": ")
	}
	fmt.Fprintf(&b, "%d %s", e.Status, e.Code)
	if e.Message != "" {
		b.WriteString(": " + e.Message)
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
	}
	return b.String()
}

// ErrorCode returns the API error code of err ("" when err is not, and
// does not wrap, an *Error).
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// IsNotFound reports whether err is the API's not_found: an absent id, or
// one of another org or another agent, which answer alike.
func IsNotFound(err error) bool { return ErrorCode(err) == CodeNotFound }

// IsStale reports whether err is a conditional update refused because the
// memory moved past the If-Match version: precondition_failed (412), or
// conflict (409) from servers that answered a stale If-Match so.
func IsStale(err error) bool {
	c := ErrorCode(err)
	return c == CodePreconditionFailed || c == CodeConflict
}

// statusCodes maps a status to its code, for bodies that name none.
var statusCodes = map[int]string{
	http.StatusBadRequest: CodeInvalid, http.StatusUnauthorized: CodeUnauthorized,
	http.StatusForbidden: CodeForbidden, http.StatusNotFound: CodeNotFound,
	http.StatusMethodNotAllowed: CodeMethodNotAllowed, http.StatusConflict: CodeConflict,
	http.StatusPreconditionFailed: CodePreconditionFailed, http.StatusRequestEntityTooLarge: CodeTooLarge,
	http.StatusTooManyRequests: CodeRateLimited, http.StatusServiceUnavailable: CodeUnavailable,
}

// parseError reads an error response of either shape. A body of neither
// (a proxy's HTML page) still gives the status, a code from it and the
// request id header.
func parseError(op string, status int, h http.Header, body []byte) *Error {
	e := &Error{Op: op, Status: status, RequestID: h.Get("X-Request-Id"), RetryAfter: parseRetryAfter(h.Get("Retry-After"), time.Now())}
	var b struct {
		Type      string `json:"type"`
		Title     string `json:"title"`
		Detail    string `json:"detail"`
		Instance  string `json:"instance"`
		Code      string `json:"code"`
		RequestID string `json:"requestId"`
		Error     *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &b) == nil {
		e.Type, e.Title, e.Instance, e.Code, e.Message = b.Type, b.Title, b.Instance, b.Code, b.Detail
		if b.RequestID != "" {
			e.RequestID = b.RequestID
		}
		if b.Error != nil {
			if e.Code == "" {
				e.Code = b.Error.Code
			}
			if e.Message == "" {
				e.Message = b.Error.Message
			}
		}
		if e.Code == "" && strings.HasPrefix(b.Type, problemTypeBase) {
			e.Code = strings.TrimPrefix(b.Type, problemTypeBase)
		}
		if e.Message == "" {
			e.Message = b.Title
		}
	} else if t := strings.TrimSpace(string(body)); t != "" && len(t) < 512 {
		e.Message = t
	}
	if e.Code == "" {
		if c, ok := statusCodes[status]; ok {
			e.Code = c
		} else {
			e.Code = CodeInternal
		}
	}
	return e
}

// parseRetryAfter reads Retry-After: delay seconds or an HTTP date; zero
// when absent or unreadable.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 {
		return time.Duration(n * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}
