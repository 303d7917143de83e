package contract

import (
	"strconv"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// ParseTime reads a time a request gives as milliseconds since the epoch
// or as an RFC 3339 string, in Unix milliseconds; "" is 0 (no bound). A
// negative number or anything else is EINVALID naming field. The HTTP API
// (query strings and JSON bodies) and the MCP tools both read times with
// it; MCP trims the spaces a model may leave around a value first.
func ParseTime(field, s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, memory.Errorf(memory.EINVALID, "%s: must not be negative", field)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return 0, memory.Errorf(memory.EINVALID, "%s: %q is neither milliseconds since the epoch nor an RFC 3339 time", field, s)
	}
	return t.UnixMilli(), nil
}
