package wordpiece

import (
	"reflect"
	"strings"
	"testing"
)

const vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\ncat\nun\n##aff\n##able\n,\n!\ncafe\n东\n京\n"

func TestEncode(t *testing.T) {
	tok, err := Load(strings.NewReader(vocab))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
		max        int
		want       []int32
	}{
		{"lower case and punctuation", "The CAT, the!", 32, []int32{2, 4, 5, 9, 4, 10, 3}},
		{"word pieces", "unaffable", 32, []int32{2, 6, 7, 8, 3}},
		{"accents stripped", "Café", 32, []int32{2, 11, 3}},
		{"unknown word is one [UNK]", "unaffablex cat", 32, []int32{2, 1, 5, 3}},
		{"CJK split per character", "东京", 32, []int32{2, 12, 13, 3}},
		{"control and zero-width removed", "the\u200bcat\x00", 32, []int32{2, 1, 3}},
		{"truncated with [SEP] kept", "the cat the cat the cat", 5, []int32{2, 4, 5, 4, 3}},
		{"empty", "", 8, []int32{2, 3}},
	}
	for _, tc := range tests {
		if got := tok.Encode(tc.text, tc.max); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Encode(%q) = %v, want %v", tc.name, tc.text, got, tc.want)
		}
	}
	if _, err := Load(strings.NewReader("a\nb\n")); err == nil {
		t.Fatal("a vocabulary without special tokens was accepted")
	}
}
