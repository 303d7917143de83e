package related

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
)

// TestDecodeVectorRecord checks that a stored term vector decodes to what
// encoding/json decodes it to, whichever path reads it: the form
// json.Marshal writes, and forms only encoding/json reads.
func TestDecodeVectorRecord(t *testing.T) {
	written := func(term, model string, scale float32, vec []byte) string {
		b, err := json.Marshal(vectorRecord{Term: term, Model: model, Scale: scale, Vec: vec})
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name string
		in   string
		fast bool // read without encoding/json
	}{
		{"plain", written("jasmine tea", "bge-small-en-v1.5", 0.0123, []byte{1, 255, 127, 128}), true},
		{"letters of any script", written("café 東京 мир", "m", 1e-3, []byte{0}), true},
		{"a quote in the term", written(`the "red" kite`, "m", 0.5, []byte{2}), false},
		{"html escapes", written("a<b & c>d", "m", 0.5, []byte{2}), false},
		{"a line separator", written("a\u2028b", "m", 0.5, []byte{2}), false},
		{"invalid UTF-8", written("a\xffb", "m", 0.5, []byte{2}), false},
		{"a control character", written("a\tb", "m", 0.5, []byte{2}), false},
		{"no vector", written("t", "m", 0.5, nil), false},
		{"an empty vector", written("t", "m", 0.5, []byte{}), true},
		{"a zero scale", written("t", "m", 0, []byte{1}), true},
		{"a tiny scale", written("t", "m", math.SmallestNonzeroFloat32, []byte{1}), true},
		{"keys in another order", `{"model":"m","term":"t","vec":"AQ==","scale":0.5}`, false},
		{"spaces", `{"term": "t", "model": "m", "scale": 0.5, "vec": "AQ=="}`, false},
		{"an escaped slash", `{"term":"a\/b","model":"m","scale":0.5,"vec":"AQ=="}`, false},
		{"a plus sign", `{"term":"t","model":"m","scale":+0.5,"vec":"AQ=="}`, false},
		{"a leading dot", `{"term":"t","model":"m","scale":.5,"vec":"AQ=="}`, false},
		{"a leading zero", `{"term":"t","model":"m","scale":00.5,"vec":"AQ=="}`, false},
		{"a hexadecimal scale", `{"term":"t","model":"m","scale":0x1p-2,"vec":"AQ=="}`, false},
		{"bad base64", `{"term":"t","model":"m","scale":0.5,"vec":"A*=="}`, false},
		{"trailing bytes", `{"term":"t","model":"m","scale":0.5,"vec":"AQ=="} `, false},
		{"truncated", `{"term":"t","model":"m","scale":0.5,"vec":"AQ==`, false},
		{"not an object", `[1,2]`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fast vectorRecord
			if got := decodeWritten([]byte(tc.in), &fast); got != tc.fast {
				t.Errorf("read without encoding/json: %v, want %v", got, tc.fast)
			}
			sameAsJSON(t, []byte(tc.in))
		})
	}
}

// sameAsJSON checks decodeVectorRecord against json.Unmarshal on b.
func sameAsJSON(t *testing.T, b []byte) {
	t.Helper()
	var want, got vectorRecord
	werr := json.Unmarshal(b, &want)
	gerr := decodeVectorRecord(b, &got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%q: error %v, encoding/json's %v", b, gerr, werr)
	}
	if werr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, encoding/json %+v", b, got, want)
	}
}

// FuzzDecodeVectorRecord checks decodeVectorRecord against encoding/json
// on written records of any fields, and on any bytes.
func FuzzDecodeVectorRecord(f *testing.F) {
	f.Add("jasmine tea", "bge", float32(0.01), []byte{1, 2, 3}, []byte(`{"term":"t","model":"m","scale":0.5,"vec":"AQ=="}`))
	f.Add(`a"b\c`, "", float32(-1), []byte(nil), []byte(`{"term":"t","model":"m","scale":1e-7,"vec":""}`))
	f.Fuzz(func(t *testing.T, term, model string, scale float32, vec, raw []byte) {
		if !math.IsNaN(float64(scale)) && !math.IsInf(float64(scale), 0) {
			b, err := json.Marshal(vectorRecord{Term: term, Model: model, Scale: scale, Vec: vec})
			if err != nil {
				t.Fatal(err)
			}
			sameAsJSON(t, b)
		}
		sameAsJSON(t, raw)
	})
}

// BenchmarkDecodeVectorRecord compares the two paths on a record of 384
// dimensions.
func BenchmarkDecodeVectorRecord(b *testing.B) {
	vec := make([]byte, 384)
	for i := range vec {
		vec[i] = byte(i * 7)
	}
	rec, _ := json.Marshal(vectorRecord{Term: "jasmine tea", Model: "bge-small-en-v1.5-int8-onnx", Scale: 0.0123, Vec: vec})
	b.Run("written form", func(b *testing.B) {
		for b.Loop() {
			var v vectorRecord
			if err := decodeVectorRecord(rec, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		for b.Loop() {
			var v vectorRecord
			if err := json.Unmarshal(rec, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
