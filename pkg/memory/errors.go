package memory

import (
	"errors"
	"fmt"
)

// Error codes. Each maps to exactly one HTTP status and one JSON-RPC error
// in transport/contract's table; callers see the code and the message, never
// internal details.
const (
	EINVALID      = "invalid"             // 400: the request is malformed or fails validation
	EUNAUTHORIZED = "unauthorized"        // 401: missing or unknown credentials
	EFORBIDDEN    = "forbidden"           // 403: the caller may not act on that scope
	ENOTFOUND     = "not_found"           // 404: absent, or not visible to the caller
	ECONFLICT     = "conflict"            // 409: a uniqueness clash or a concurrent change
	EPRECONDITION = "precondition_failed" // 412: a conditional request (If-Match, If-None-Match) does not hold
	ETOOLARGE     = "too_large"           // 413: the body exceeds its limit
	EUNAVAILABLE  = "unavailable"         // 503: a dependency is down or throttling
	EQUOTA        = "quota_exceeded"      // 403: the org is at one of its quotas
	ERATELIMIT    = "rate_limited"        // 429: the key sends too fast or too many at once
	EINTERNAL     = "internal"            // 500: anything else; details are logged only
)

// EUNPROCESSABLE (422): the request is well-formed but cannot be processed
// as sent, such as an Idempotency-Key reused with a different request.
const EUNPROCESSABLE = "unprocessable"

// Error is an application error with a code and a message safe to show to
// the caller.
type Error struct {
	Code    string
	Message string
}

// Error implements the error interface.
func (e *Error) Error() string { return fmt.Sprintf("memory: %s: %s", e.Code, e.Message) }

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL for
// any other non-nil error and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the caller-safe message of err: the message of an
// *Error, or a generic text for internal errors.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}

// IsNotFound reports whether err carries ENOTFOUND.
func IsNotFound(err error) bool { return ErrorCode(err) == ENOTFOUND }

// IsConflict reports whether err carries ECONFLICT.
func IsConflict(err error) bool { return ErrorCode(err) == ECONFLICT }

// ErrNotFound is the single not-found message, identical whether the id does
// not exist, belongs to another org or to an agent the caller cannot see, so
// that nothing leaks about other tenants.
func ErrNotFound(id string) error { return Errorf(ENOTFOUND, "memory %q not found", id) }

// DuplicateError is the ECONFLICT returned when a write would give a scope
// two memories with the same DedupKey. ExistingID is the memory holding it.
type DuplicateError struct{ ExistingID string }

// Error implements error.
func (e *DuplicateError) Error() string {
	return fmt.Sprintf("memory: conflict: the content duplicates memory %q in the same scope", e.ExistingID)
}

// Unwrap lets ErrorCode and ErrorMessage see ECONFLICT.
func (e *DuplicateError) Unwrap() error {
	return &Error{Code: ECONFLICT, Message: fmt.Sprintf("the content duplicates memory %q in the same scope", e.ExistingID)}
}
