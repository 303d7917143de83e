//go:build race

package bolt_test

// TestANNRecall's corpus size and queries per filter and stage: under the
// race detector, which slows the graph's build and walks tenfold, a
// smaller run keeps make test short.
const annSize, annQueries = 4_000, 25
