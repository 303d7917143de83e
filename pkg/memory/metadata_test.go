package memory

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMetadataPairs(t *testing.T) {
	long := strings.Repeat("x", MaxMetadataValueLen+1)
	many := map[string]int{}
	for i := 0; i < MaxMetadataPairs+5; i++ {
		many[fmt.Sprintf("k%03d", i)] = i
	}
	manyJSON, _ := json.Marshal(many)
	tests := []struct {
		name, meta string
		want       []string
	}{
		{"none", ``, nil},
		{"null", `null`, nil},
		{"scalars", `{"s":"v","n":1.50,"i":-3,"t":true,"f":false}`, []string{"f=false", "i=-3", "n=1.50", "s=v", "t=true"}},
		{"array elements once each", `{"tags":["a","b","a",2,null,{"x":1}]}`, []string{"tags=2", "tags=a", "tags=b"}},
		{"null and objects are not filterable", `{"z":null,"o":{"a":"b"}}`, nil},
		{"keys that cannot be filtered on", `{"a b":"1","a=b":"2","ok":"3"}`, []string{"ok=3"}},
		{"values too long or with control characters", `{"l":"` + long + `","c":"a\nb","ok":"fine"}`, []string{"ok=fine"}},
		{"an equals sign in a value", `{"eq":"a=b"}`, []string{"eq=a=b"}},
		{"not an object", `["a"]`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := MetadataPairs(json.RawMessage(tc.meta))
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Fatalf("pairs %q, want %q", got, tc.want)
			}
		})
	}
	if got := MetadataPairs(manyJSON); len(got) != MaxMetadataPairs || got[0] != "k000=0" {
		t.Fatalf("%d pairs from %d keys, first %q", len(got), len(many), got[0])
	}
}

func TestMetadataFilter(t *testing.T) {
	pairs := MetadataPairs(json.RawMessage(`{"p":"apollo","n":2,"tags":["red","blue"],"done":true}`))
	tests := []struct {
		name, filter string
		err          string // "" when valid
		match        bool
	}{
		{"equality", `{"p":"apollo"}`, "", true},
		{"in", `{"p":["gemini","apollo"]}`, "", true},
		{"no value matches", `{"p":["gemini"]}`, "", false},
		{"number", `{"n":2}`, "", true},
		{"number as a string", `{"n":"2"}`, "", true},
		{"boolean", `{"done":true}`, "", true},
		{"array element", `{"tags":"blue"}`, "", true},
		{"every key must match", `{"tags":"blue","p":"gemini"}`, "", false},
		{"absent key", `{"missing":"x"}`, "", false},
		{"object value", `{"p":{"a":1}}`, "metadata.p: values must be strings, numbers or booleans", false},
		{"null value", `{"p":null}`, "metadata.p: values must be", false},
		{"empty array", `{"p":[]}`, "metadata.p: at least one value", false},
		{"bad key", `{"a b":"x"}`, "metadata.a b: keys are", false},
		{"not an object", `"p=x"`, "metadata: must be an object", false},
		{"too many keys", `{"a":1,"b":1,"c":1,"d":1,"e":1,"f":1,"g":1,"h":1,"i":1}`, "metadata: 9 keys exceed", false},
		{"long value", `{"p":"` + strings.Repeat("v", MaxMetadataValueLen+1) + `"}`, "metadata.p: a value is longer", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var mf MetadataFilter
			err := json.Unmarshal([]byte(tc.filter), &mf)
			if err == nil {
				err = mf.Validate()
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.err != "" && (ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.err)):
				t.Fatalf("error %v, want invalid with %q", err, tc.err)
			case tc.err == "" && mf.Match(pairs) != tc.match:
				t.Fatalf("match = %v, want %v", !tc.match, tc.match)
			}
		})
	}
}
