package httpapi

import (
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestCheckUTF8 checks which JSON strings are refused as not UTF-8, and
// the field each refusal names.
func TestCheckUTF8(t *testing.T) {
	tests := []struct {
		name, body, bad string // bad: the field named, "" when accepted
	}{
		{"ASCII", `{"a":"b"}`, ""},
		{"UTF-8 text", `{"a":"café 東京 😀"}`, ""},
		{"a surrogate pair", `{"a":"\ud83d\ude00"}`, ""},
		{"a surrogate pair in upper case", `{"a":"\uD83D\uDE00"}`, ""},
		{"an escaped backslash before ud800", `{"a":"\\ud800"}`, ""},
		{"U+FFFD itself", `{"a":"\ufffd �"}`, ""},
		{"numbers and literals", `{"a":[1,-2.5e3,true,false,null],"b":{}}`, ""},
		{"raw invalid byte", "{\"a\":\"x\xffy\"}", "a"},
		{"a truncated sequence", "{\"a\":{\"b\":\"\xe6\x9d\"}}", "a.b"},
		{"an encoded surrogate", "{\"a\":\"\xed\xa0\x80\"}", "a"},
		{"a high surrogate alone", `{"a":"\ud800"}`, "a"},
		{"a high surrogate before a letter", `{"a":"\ud800x"}`, "a"},
		{"two high surrogates", `{"a":"\ud800\ud800"}`, "a"},
		{"a low surrogate alone", `{"a":"\udc00"}`, "a"},
		{"in an array", `{"a":["ok",{"b":["x","\udfff"]}]}`, "a[1].b[1]"},
		{"a key", "{\"a\":{\"k\xff\":1}}", "a.(key)"},
		{"a top-level string", `"\ud800"`, "body"},
		{"the second of two fields", `{"a":"ok","b":"\udc01"}`, "b"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkUTF8([]byte(tc.body))
			switch {
			case tc.bad == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.bad != "" && (memory.ErrorCode(err) != memory.EINVALID || memory.ErrorMessage(err) != tc.bad+": not valid UTF-8"):
				t.Fatalf("got %v, want EINVALID naming %s", err, tc.bad)
			}
		})
	}
}
