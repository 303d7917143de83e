package httpapi

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Conditional requests (RFC 9110 section 13). A memory's entity tag is its
// version, quoted: "3". If-Match makes PATCH, DELETE and PUT by key
// conditional on it (412 when stale); If-None-Match: * makes a create
// create-only (412 when the memory exists); If-None-Match with tags makes
// a GET answer 304 while the memory is unchanged.

// etag is the entity tag of version v.
func etag(v int64) string { return strconv.Quote(strconv.FormatInt(v, 10)) }

// ifMatch is the version If-Match requires, 0 without the header (or with
// "*", which any existing memory matches). A list of tags, or one that is
// not a version this API sent, is EINVALID.
func ifMatch(r *http.Request) (int64, error) {
	h := strings.TrimSpace(r.Header.Get("If-Match"))
	if h == "" || h == "*" {
		return 0, nil
	}
	v, err := strconv.ParseInt(strings.Trim(strings.TrimPrefix(h, "W/"), `"`), 10, 64)
	if err != nil || v < 1 {
		return 0, memory.Errorf(memory.EINVALID, "If-Match: %q is not a version returned in an ETag", h)
	}
	return v, nil
}

// createOnly reports whether r carries If-None-Match: *; any other value
// on a write is EINVALID, since only "*" means something there.
func createOnly(r *http.Request) (bool, error) {
	h := strings.TrimSpace(r.Header.Get("If-None-Match"))
	switch h {
	case "":
		return false, nil
	case "*":
		return true, nil
	}
	return false, memory.Errorf(memory.EINVALID, "If-None-Match: only \"*\" (create only) is supported on writes, got %q", h)
}

// notModified reports whether r's If-None-Match holds tag (or "*"): the
// client's copy is current. Weak and strong forms compare alike, as RFC
// 9110 asks of If-None-Match.
func notModified(r *http.Request, tag string) bool {
	h := r.Header.Get("If-None-Match")
	if h == "" {
		return false
	}
	for _, t := range strings.Split(h, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == tag {
			return true
		}
	}
	return false
}

// preconditionFailed maps a stale-version ECONFLICT of a conditional
// write (ifVersion > 0) to EPRECONDITION, and leaves any other error.
func preconditionFailed(err error, ifVersion int64) error {
	if ifVersion > 0 && memory.IsConflict(err) {
		return memory.Errorf(memory.EPRECONDITION, "%s", memory.ErrorMessage(err))
	}
	return err
}

// memoryLocation is the URL path of memory id.
func memoryLocation(id string) string { return "/v1/memories/" + id }
