package opensearch

import (
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
)

// TestStopWordsAreBleves: the copied stop list is exactly bleve's, which
// the embedded index uses, so keyword scores agree between the two.
func TestStopWordsAreBleves(t *testing.T) {
	var want []string
	for _, line := range strings.Split(string(en.EnglishStopWords), "\n") {
		if i := strings.IndexByte(line, '|'); i >= 0 {
			line = line[:i]
		}
		want = append(want, strings.Fields(line)...)
	}
	if !slices.Equal(stopWords, want) {
		t.Fatalf("the stop list drifted from bleve's:\n got %v\nwant %v", stopWords, want)
	}
}
