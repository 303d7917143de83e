package testenv_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/internal/testenv"
)

const signed = "AWS4-HMAC-SHA256 Credential=local/20240101/us-west-2/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=0a1b"

// TestBedrockChecksAndRoutes holds what every Bedrock test relies on: the
// signature and method checks, the throttle, and each route to its model.
func TestBedrockChecksAndRoutes(t *testing.T) {
	b := testenv.StartBedrock(t, &testenv.Bedrock{
		Region: "us-west-2",
		Converse: func(w http.ResponseWriter, model string, req testenv.ConverseRequest) {
			tool, _ := req.ForcedTool()
			user, ok := req.OneUserMessage()
			if !ok || tool != "t" {
				testenv.BedrockFail(w, 400, "ValidationException", "shape")
				return
			}
			testenv.ConverseToolUse(w, tool, map[string]string{"model": model, "user": user})
		},
		Invoke: func(w http.ResponseWriter, _ *http.Request, model string, body []byte) {
			w.Write([]byte(`{"invoked":"` + model + `"}`))
		},
	})
	b.Throttle.Store(1)
	converse := `{"messages":[{"role":"user","content":[{"text":"hi"}]}],"system":[{"text":"s"}],
		"toolConfig":{"tools":[{"toolSpec":{"name":"t","inputSchema":{"json":{"type":"object"}}}}],"toolChoice":{"tool":{"name":"t"}}}}`
	tests := []struct {
		name, method, path, auth, body string
		status                         int
		kind, has                      string
	}{
		{"throttled first", "POST", "/model/m/invoke", signed, "{}", 429, "ThrottlingException", ""},
		{"unsigned", "POST", "/model/m/invoke", "", "{}", 403, "AccessDeniedException", ""},
		{"another region", "POST", "/model/m/invoke", strings.Replace(signed, "us-west-2", "eu-west-1", 1), "{}", 403, "AccessDeniedException", ""},
		{"GET", "GET", "/model/m/invoke", signed, "", 405, "ValidationException", ""},
		{"invoke", "POST", "/model/titan/invoke", signed, "{}", 200, "", `"invoked":"titan"`},
		{"converse", "POST", "/model/claude/converse", signed, converse, 200, "", `"toolUse"`},
		{"converse of another shape", "POST", "/model/claude/converse", signed, `{"messages":[]}`, 400, "ValidationException", ""},
		{"converse not JSON", "POST", "/model/claude/converse", signed, `{`, 400, "ValidationException", ""},
		{"unknown operation", "POST", "/model/m/stream", signed, "{}", 400, "ValidationException", ""},
		{"no other route", "POST", "/rerank", signed, "{}", 404, "ResourceNotFoundException", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, b.URL+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
				req.Header.Set("X-Amz-Date", "20240101T000000Z")
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || resp.Header.Get("X-Amzn-ErrorType") != tc.kind || !strings.Contains(string(raw), tc.has) {
				t.Errorf("%d %q %s; want %d %q with %s", resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"), raw, tc.status, tc.kind, tc.has)
			}
			if tc.kind != "" && !json.Valid(raw) {
				t.Errorf("error body %s is not JSON", raw)
			}
		})
	}
	// a Converse body not sent as JSON is refused, as Bedrock refuses it
	req, err := http.NewRequest("POST", b.URL+"/model/claude/converse", strings.NewReader(converse))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/plain")
	req.Header.Set("Authorization", signed)
	req.Header.Set("X-Amz-Date", "20240101T000000Z")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("X-Amzn-ErrorType") != "ValidationException" || !strings.Contains(string(raw), "content type") {
		t.Errorf("converse as text/plain: %d %q %s; want 400 ValidationException", resp.StatusCode, resp.Header.Get("X-Amzn-ErrorType"), raw)
	}
	if n := b.Requests.Load(); n != int32(len(tests)+1) {
		t.Errorf("%d requests counted, want %d", n, len(tests)+1)
	}
}
