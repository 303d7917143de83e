// Package contract is the transport-neutral API contract: the one table that
// maps each memory error code to what every transport answers with (an HTTP
// status and an RFC 9457 problem type for the REST API, a JSON-RPC error code
// for MCP). The HTTP handler, the API Gateway adapter and the MCP server all
// translate onto it, so a code cannot mean one thing over HTTP and another
// over MCP.
package contract

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ErrorKind is how every transport presents one error code.
type ErrorKind struct {
	// Code is the memory error code (memory.EINVALID, ...), the stable
	// identifier clients switch on.
	Code string
	// Status is the HTTP status.
	Status int
	// Title is the RFC 9457 problem title: short, the same for every
	// occurrence of the code.
	Title string
	// RPC is the JSON-RPC 2.0 error code used by the MCP server. Invalid
	// input uses the standard "invalid params" code; the others sit in the
	// range JSON-RPC reserves for implementation-defined server errors.
	RPC int
}

// JSON-RPC 2.0 error codes of the table.
const (
	RPCInvalidParams = -32602 // the standard code for invalid method parameters
	RPCInternal      = -32603 // the standard code for an internal error
)

// ProblemTypeBase prefixes each problem type URI: a problem's "type" is
// ProblemTypeBase + its code (a URN, since no page is promised to resolve),
// and the OpenAPI spec documents each one.
const ProblemTypeBase = "urn:agentmem:problem:"

// Errors is the table, one row per code.
var Errors = []ErrorKind{
	{memory.EINVALID, http.StatusBadRequest, "Invalid request", RPCInvalidParams},
	{memory.EUNAUTHORIZED, http.StatusUnauthorized, "Unauthorized", -32001},
	{memory.EFORBIDDEN, http.StatusForbidden, "Forbidden", -32003},
	{memory.ENOTFOUND, http.StatusNotFound, "Not found", -32004},
	{memory.ECONFLICT, http.StatusConflict, "Conflict", -32009},
	{memory.EPRECONDITION, http.StatusPreconditionFailed, "Precondition failed", -32012},
	{memory.ETOOLARGE, http.StatusRequestEntityTooLarge, "Request too large", -32013},
	{memory.EUNPROCESSABLE, http.StatusUnprocessableEntity, "Unprocessable request", -32022},
	{memory.EQUOTA, http.StatusForbidden, "Quota exceeded", -32023},
	{memory.ERATELIMIT, http.StatusTooManyRequests, "Rate limited", -32029},
	{memory.EUNAVAILABLE, http.StatusServiceUnavailable, "Service unavailable", -32053},
	{memory.EINTERNAL, http.StatusInternalServerError, "Internal error", RPCInternal},
}

// Kind returns the row of code; an unknown code is an internal error.
func Kind(code string) ErrorKind {
	for _, k := range Errors {
		if k.Code == code {
			return k
		}
	}
	return Errors[len(Errors)-1]
}

// KindOf returns the row of err's code (memory.ErrorCode).
func KindOf(err error) ErrorKind { return Kind(memory.ErrorCode(err)) }
