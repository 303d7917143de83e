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

// FuzzLoad fuzzes the vocabulary reader with the text to encode: a
// vocabulary is refused with an error, or every id Encode returns is below
// Size, and the special tokens have the id of their last line. The
// committed corpus (testdata/fuzz/FuzzLoad) holds the vocabulary with a
// duplicate line whose ids were once out of range.
func FuzzLoad(f *testing.F) {
	f.Add(vocab, "the cat")
	f.Add(fuzzVocab, "running dogs 日本")
	f.Add("[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nthe\ncat\n", "the cat")
	f.Add("[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\n\r\n##a\n", "a aa")
	f.Add("a\nb\n", "a")
	f.Fuzz(func(t *testing.T, voc, text string) {
		tok, err := Load(strings.NewReader(voc))
		if err != nil {
			return
		}
		lines := strings.Split(strings.TrimSuffix(voc, "\n"), "\n")
		if voc == "" {
			lines = nil
		}
		if tok.Size() != len(lines) {
			t.Fatalf("Size %d for %d lines", tok.Size(), len(lines))
		}
		for _, special := range []struct {
			name string
			id   int32
		}{{"[UNK]", tok.unk}, {"[CLS]", tok.cls}, {"[SEP]", tok.sep}, {"[PAD]", tok.pad}} {
			last := -1
			for i, l := range lines {
				if strings.TrimRight(l, "\r") == special.name {
					last = i
				}
			}
			if int(special.id) != last {
				t.Fatalf("%s has id %d, its last line is %d", special.name, special.id, last)
			}
		}
		for i, id := range tok.Encode(text, 64) {
			if id < 0 || int(id) >= tok.Size() {
				t.Fatalf("id %d at %d is outside the vocabulary of %d", id, i, tok.Size())
			}
		}
	})
}
