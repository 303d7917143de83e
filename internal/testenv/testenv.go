// Package testenv gives tests the local servers make test starts: a test
// asks for a server's address by environment variable and is skipped when
// it is not set, unless the matching REQUIRE_ variable is "1" (make test
// sets it), which turns the missing server into a failure. Where no local
// server exists (Bedrock), it holds the one fake every test starts
// (StartBedrock).
package testenv

import (
	"os"
	"testing"
)

// Servers maps each address variable to the variable that requires it.
var Servers = map[string]string{
	"OPENSEARCH_URL":    "REQUIRE_OPENSEARCH",
	"DYNAMODB_ENDPOINT": "REQUIRE_DYNAMODB",
	"SQS_ENDPOINT":      "REQUIRE_SQS",
	"MODEL_DIR":         "REQUIRE_MODEL",
	"LOCALSTACK_URL":    "REQUIRE_LOCALSTACK",
}

// Get returns the value of the address variable name, skipping or failing
// the test when it is empty.
func Get(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		if req := Servers[name]; req != "" && os.Getenv(req) == "1" {
			t.Fatalf("%s=1 but %s is not set", req, name)
		}
		t.Skipf("%s is not set; make test starts the local servers (scripts/test.sh)", name)
	}
	return v
}
