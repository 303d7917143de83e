//go:build race

package bolt_test

// annSize is TestANNRecall's corpus size: under the race detector, which
// slows the graph's build tenfold, a smaller corpus keeps make test short.
const annSize = 6_000
