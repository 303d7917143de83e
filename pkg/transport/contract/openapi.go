package contract

import _ "embed"

// OpenAPI is the OpenAPI 3.1 document of the REST API (openapi.json), the
// spec of record: the HTTP handler serves it at /v1/openapi.json, and tests
// check it both ways against the handler's route table, validate real
// responses against its schemas, and keep its error codes equal to Errors.
//
//go:embed openapi.json
var OpenAPI []byte
