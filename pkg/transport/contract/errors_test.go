package contract

import (
	"errors"
	"net/http"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestErrorTable checks that every code appears once, with a status that is
// an error status and a JSON-RPC code outside the range JSON-RPC keeps for
// its own protocol errors, except the two standard ones the table uses.
func TestErrorTable(t *testing.T) {
	seenCode, seenRPC := map[string]bool{}, map[int]string{}
	for _, k := range Errors {
		if seenCode[k.Code] {
			t.Errorf("code %q appears twice", k.Code)
		}
		seenCode[k.Code] = true
		if k.Status < 400 || k.Status > 599 {
			t.Errorf("%s: status %d is not an error status", k.Code, k.Status)
		}
		if prev, ok := seenRPC[k.RPC]; ok {
			t.Errorf("%s and %s share JSON-RPC code %d", prev, k.Code, k.RPC)
		}
		seenRPC[k.RPC] = k.Code
		if k.RPC != RPCInvalidParams && k.RPC != RPCInternal && (k.RPC > -32000 || k.RPC < -32099) {
			t.Errorf("%s: JSON-RPC code %d is outside the server-error range", k.Code, k.RPC)
		}
		if k.Title == "" {
			t.Errorf("%s: no title", k.Code)
		}
	}
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		err    error
		status int
	}{
		{memory.Errorf(memory.EINVALID, "bad"), http.StatusBadRequest},
		{memory.Errorf(memory.EPRECONDITION, "stale"), http.StatusPreconditionFailed},
		{memory.Errorf(memory.EQUOTA, "full"), http.StatusForbidden},
		{errors.New("boom"), http.StatusInternalServerError},
		{memory.Errorf("no-such-code", "x"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		if got := KindOf(tt.err).Status; got != tt.status {
			t.Errorf("KindOf(%v).Status = %d, want %d", tt.err, got, tt.status)
		}
	}
}
