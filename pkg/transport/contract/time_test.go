package contract_test

import (
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/contract"
)

func TestParseTime(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr string // a part of the message; "" for none
	}{
		{"", 0, ""},
		{"0", 0, ""},
		{"1767225600000", 1767225600000, ""},
		{"2026-01-01T00:00:00Z", 1767225600000, ""},
		{"2026-01-01T01:00:00.5+01:00", 1767225600500, ""},
		{"-1", 0, "start: must not be negative"},
		{"yesterday", 0, `start: "yesterday" is neither milliseconds since the epoch nor an RFC 3339 time`},
		{" 1767225600000", 0, "is neither"}, // spaces are the caller's to trim
		{"2026-01-01", 0, "is neither"},
	}
	for _, tc := range tests {
		got, err := contract.ParseTime("start", tc.in)
		switch {
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || memory.ErrorCode(err) != memory.EINVALID):
			t.Errorf("ParseTime(%q) = %d, %v; want an EINVALID error with %q", tc.in, got, err, tc.wantErr)
		}
	}
}
