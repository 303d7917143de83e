//go:build !race

package bolt_test

// TestANNRecall's corpus size and queries per filter and stage.
const annSize, annQueries = 30_000, 40
