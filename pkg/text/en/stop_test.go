package en_test

import (
	"slices"
	"strings"
	"testing"

	bleveen "github.com/blevesearch/bleve/v2/analysis/lang/en"

	"github.com/agentmem/agentmem/pkg/text/en"
)

// TestStopWordsAreBleves: the copied stop list is exactly bleve's, which
// the embedded index uses, so keyword scores agree between the embedded
// and the OpenSearch index.
func TestStopWordsAreBleves(t *testing.T) {
	var want []string
	for _, line := range strings.Split(string(bleveen.EnglishStopWords), "\n") {
		if i := strings.IndexByte(line, '|'); i >= 0 {
			line = line[:i]
		}
		want = append(want, strings.Fields(line)...)
	}
	if !slices.Equal(en.SnowballStopWords(), want) {
		t.Fatalf("the stop list drifted from bleve's:\n got %v\nwant %v", en.SnowballStopWords(), want)
	}
}
