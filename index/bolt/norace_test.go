//go:build !race

package bolt_test

// annSize is TestANNRecall's corpus size.
const annSize = 30_000
