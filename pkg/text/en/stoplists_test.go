package en

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
)

// digest is the SHA-256 of a set's words, sorted, one a line.
func digest(m map[string]bool) (int, string) {
	words := make([]string, 0, len(m))
	for w := range m {
		words = append(words, w)
	}
	slices.Sort(words)
	sum := sha256.Sum256([]byte(strings.Join(words, "\n")))
	return len(words), hex.EncodeToString(sum[:])
}

// TestStoredListsAreFrozen: the term index stores knowledge refs under the
// words TermStopWord keeps, and the hashing embedder's stored vectors are
// shaped by the words EmbedStopWord drops. A change to either list would
// make indexes and data directories built before disagree with the code,
// so their content is pinned here (the digests are those of the lists as
// they stood in pkg/memory and pkg/embed/hashing before they moved).
func TestStoredListsAreFrozen(t *testing.T) {
	tests := []struct {
		name string
		set  map[string]bool
		n    int
		sum  string
	}{
		{"TermStopWord", termStop, 86, "dda6ba3474c21ceb82144c5eed92e9032db378653402f29f7036e5f379da6658"},
		{"EmbedStopWord", embedStop, 60, "c4c82517689cd0b43c24589c90ced552a7a0f0fe8f771eb0c8f1acf8bb64900f"},
	}
	for _, tc := range tests {
		if n, sum := digest(tc.set); n != tc.n || sum != tc.sum {
			t.Errorf("%s changed: %d words, digest %s; want %d, %s (stored data depends on it)", tc.name, n, sum, tc.n, tc.sum)
		}
	}
}

// TestWordLists pins each list's purpose on words that tell the lists
// apart.
func TestWordLists(t *testing.T) {
	tests := []struct {
		list string
		is   func(string) bool
		in   []string
		out  []string
	}{
		{"TermStopWord", TermStopWord, []string{"the", "of", "not", "about", "whose"}, []string{"there", "am", "remember", "dog", ""}},
		{"QuestionStopWord", QuestionStopWord, []string{"the", "not", "remember", "mention", "am", "ones"}, []string{"dog", "paris", "paint"}},
		{"EmbedStopWord", EmbedStopWord, []string{"the", "am", "there", "us"}, []string{"not", "about", "dog"}},
		{"ChatStopWord", ChatStopWord, []string{"the", "yeah", "stuff", "awesome", "like", "today"}, []string{"dog", "pottery", "paris"}},
		{"PastVerbForm", PastVerbForm, []string{"went", "been", "were", "used", "won", "written"}, []string{"go", "lay", "walked", "bound"}},
		{"CommonIrregularPast", CommonIrregularPast, []string{"went", "bought", "read", "met"}, []string{"was", "been", "gone", "walked"}},
	}
	for _, tc := range tests {
		for _, w := range tc.in {
			if !tc.is(w) {
				t.Errorf("%s(%q) = false, want true", tc.list, w)
			}
		}
		for _, w := range tc.out {
			if tc.is(w) {
				t.Errorf("%s(%q) = true, want false", tc.list, w)
			}
		}
	}
}
