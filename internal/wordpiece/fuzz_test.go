package wordpiece

import (
	"reflect"
	"strings"
	"testing"
)

// fuzzVocab is a small vocabulary with whole words, "##" continuations,
// punctuation, an accented-free form and CJK characters.
const fuzzVocab = vocab + "dog\n##s\n##ing\nrun\nmemory\n##less\n.\n?\n-\n0\n1\n##0\nä\n日\n本\n"

// FuzzEncode fuzzes the tokenizer: the ids are in the vocabulary's range,
// start with [CLS] and end with [SEP], nothing else is [CLS], [SEP] or
// [PAD]; a limit of two or more bounds the length, and truncating is
// taking a prefix of the untruncated ids.
func FuzzEncode(f *testing.F) {
	tok, err := Load(strings.NewReader(fuzzVocab))
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"The CAT, the!", "unaffable", "Café", "东京", "the\u200bcat\x00", "running dogs", "日本 memoryless?",
		strings.Repeat("a", 150), "\xff\xfe", "e\u0301\u0301", "ǅ ß ﬁ", ""} {
		f.Add(s, 32)
	}
	f.Add("the cat the cat the cat", 5)
	f.Add("the cat", 1)
	f.Fuzz(func(t *testing.T, text string, maxLen int) {
		full := tok.Encode(text, 1<<30)
		ids := tok.Encode(text, maxLen)
		for name, seq := range map[string][]int32{"full": full, "truncated": ids} {
			if len(seq) < 2 || seq[0] != tok.cls || seq[len(seq)-1] != tok.sep {
				t.Fatalf("%s: %v lacks [CLS] ... [SEP]", name, seq)
			}
			for i, id := range seq {
				if id < 0 || int(id) >= tok.Size() {
					t.Fatalf("%s: id %d at %d is outside the vocabulary of %d", name, id, i, tok.Size())
				}
				if i > 0 && i < len(seq)-1 && (id == tok.cls || id == tok.sep || id == tok.pad) {
					t.Fatalf("%s: special id %d inside the sequence %v", name, id, seq)
				}
			}
		}
		if maxLen < 2 {
			return // below two, Encode does not truncate
		}
		want := full
		if len(full) > maxLen {
			want = append(append([]int32{}, full[:maxLen-1]...), tok.sep)
		}
		if !reflect.DeepEqual(ids, want) {
			t.Fatalf("Encode(%q, %d) = %v, want the prefix %v", text, maxLen, ids, want)
		}
	})
}
