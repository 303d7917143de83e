package main

import (
	"net/http"
	"strings"
)

// deleteIndices removes the OpenSearch indices the functions created
// behind alias (named after it).
func deleteIndices(url, alias string) {
	req, err := http.NewRequest(http.MethodDelete, strings.TrimRight(url, "/")+"/"+alias+"*", nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}
