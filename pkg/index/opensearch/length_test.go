package opensearch

import (
	"testing"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
)

// TestTextLengthIsBlevesTokenCount: the length indexed beside each memory
// is the embedded index's (bleve's English analyzer), so both normalise
// by the same lengths.
func TestTextLengthIsBlevesTokenCount(t *testing.T) {
	an, err := registry.NewCache().AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"", "the", "The quarterly budget review moved to Thursday afternoon",
		"She's John’s friend; it's what they'd do, isn't it?", "3.14 apples, U.S.A. and e-mail at 10:30",
		"Ünïcödé wörds — and 東京 タワー and emoji 🎻 too", "don't DON'T Don’t won't", "a b c d e f g",
		"2026-01-01 room-1 user:u1 memo #42", "JAMES'S cat's toys'",
	} {
		if got, want := textLength(text), len(an.Analyze([]byte(text))); got != want {
			t.Errorf("%q: %d tokens, bleve keeps %d", text, got, want)
		}
	}
}
