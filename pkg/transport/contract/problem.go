package contract

import (
	"encoding/json"
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ProblemContentType is the media type of every error response of the REST
// API (RFC 9457).
const ProblemContentType = "application/problem+json"

// Problem is an RFC 9457 problem details object: the body of every error
// response of the REST API. Code is the memory error code, kept as an
// extension member so that clients can switch on it; RequestID is the
// request's X-Request-Id.
type Problem struct {
	Type      string `json:"type"`
	Title     string `json:"title"`
	Status    int    `json:"status"`
	Detail    string `json:"detail"`
	Instance  string `json:"instance,omitempty"`
	Code      string `json:"code"`
	RequestID string `json:"requestId,omitempty"`
}

// NewProblem returns the problem of code with detail, for the request path
// instance and the request id.
func NewProblem(code, detail, instance, requestID string) Problem {
	if code == MethodNotAllowed {
		return Problem{Type: ProblemTypeBase + code, Title: "Method not allowed", Status: http.StatusMethodNotAllowed,
			Detail: detail, Instance: instance, Code: code, RequestID: requestID}
	}
	k := Kind(code) // an unknown code is an internal error
	return Problem{Type: ProblemTypeBase + k.Code, Title: k.Title, Status: k.Status, Detail: detail,
		Instance: instance, Code: k.Code, RequestID: requestID}
}

// MethodNotAllowed is the code of the router's 405, the one problem code
// outside the table: no memory error carries it.
const MethodNotAllowed = "method_not_allowed"

// ProblemOf returns the problem of err; an internal error's detail is
// replaced by a generic text naming the request id, so that nothing
// internal reaches the caller.
func ProblemOf(err error, instance, requestID string) Problem {
	code, msg := memory.ErrorCode(err), memory.ErrorMessage(err)
	if code == memory.EINTERNAL {
		msg = "internal error; request id " + requestID
	}
	return NewProblem(code, msg, instance, requestID)
}

// WriteProblem writes p as an application/problem+json response.
func WriteProblem(w http.ResponseWriter, p Problem) {
	w.Header().Set("Content-Type", ProblemContentType)
	w.WriteHeader(p.Status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(p)
}
