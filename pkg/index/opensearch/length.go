package opensearch

import (
	"strings"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/text/en"
	"github.com/blevesearch/segment"
)

// stopSet is the Snowball stop list the index's analyzer uses, as a set.
var stopSet = func() map[string]bool {
	words := en.SnowballStopWords()
	s := make(map[string]bool, len(words))
	for _, w := range words {
		s[w] = true
	}
	return s
}()

// textLength is how many tokens the English analysis keeps of text: the
// words of Unicode word segmentation (UAX #29, as the embedded index's
// tokenizer and OpenSearch's standard one), less the stop words once
// lower-cased and stripped of a possessive 's. Stemming keeps the count.
// It is the document length BM25 normalises by, indexed as "len" so that
// the average length of the memories a reader may see can be summed
// (OpenSearch's own average spans the whole shard: every org's memories).
func textLength(text string) int {
	seg := segment.NewWordSegmenterDirect([]byte(text))
	n := 0
	for seg.Segment() {
		if seg.Type() == segment.None {
			continue
		}
		if !stopSet[strings.ToLower(stripPossessive(string(seg.Bytes())))] {
			n++
		}
	}
	return n
}

// stripPossessive drops a trailing 's (with any of the apostrophes the
// English possessive filter knows).
func stripPossessive(w string) string {
	last, n := utf8.DecodeLastRuneInString(w)
	if last != 's' && last != 'S' {
		return w
	}
	prev, m := utf8.DecodeLastRuneInString(w[:len(w)-n])
	if prev == '\'' || prev == '’' || prev == '＇' {
		return w[:len(w)-n-m]
	}
	return w
}
