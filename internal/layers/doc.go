// Package layers reads the module's import graph over go list -deps (List)
// for the tests that hold it: functions/deps_test.go (what each Lambda
// links) and its own, which check that the module's imports point down the
// layers docs/architecture.md draws, and that the architecture's diagram
// and the README's tree name exactly the packages under pkg/.
//
//   - domain (pkg/memory) imports nothing of the project;
//   - support (internal/..., pkg/text/..., pkg/telemetry, the contract suites
//     pkg/memory/memorytest and pkg/pipeline/ingest/ingesttest) imports
//     the domain and support only;
//   - adapters (pkg/store, pkg/index, pkg/embed, pkg/llm, pkg/rerank,
//     pkg/blob, pkg/queue, pkg/telemetry/...) import the domain, support and
//     their own subtree (pkg/store/dynamodb/schema): no use case, pipeline,
//     transport or wiring;
//   - use cases (pkg/service, pkg/retrieval, pkg/knowledge/..., pkg/auth)
//     import no adapter, pipeline, transport or wiring;
//   - pipelines (pkg/pipeline/...) import no adapter, transport or wiring;
//   - transports (pkg/transport/...) import no adapter or wiring;
//   - the Go client (pkg/client) imports support only;
//   - only the composition roots (pkg/wiring/...) and the entry points
//     (cmd/..., functions/..., and the deployment tests of localstack/)
//     assemble: import adapters and wiring.
//
// The test lives here rather than beside functions/deps_test.go because it
// is a rule of the whole module on the default build, while that test is
// about what the Lambda build (linux/arm64, no cgo) links.
package layers
