package memory

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf8"
)

// Limits of metadata filters and of the metadata values they can select.
const (
	// MaxMetadataKeys is how many metadata keys one filter may name.
	MaxMetadataKeys = 8
	// MaxMetadataValues is how many values one key of a filter may list.
	MaxMetadataValues = 32
	// MaxMetadataKeyLen bounds a filterable metadata key (bytes).
	MaxMetadataKeyLen = 64
	// MaxMetadataValueLen bounds a filterable metadata value (bytes): a
	// longer value in a memory is kept but cannot be filtered on.
	MaxMetadataValueLen = 256
	// MaxMetadataPairs bounds the key=value pairs indexed per memory; a
	// memory's pairs past it (in key order) cannot be filtered on.
	MaxMetadataPairs = 64
)

// ValidMetadataKey reports whether k can be filtered on: 1 to
// MaxMetadataKeyLen bytes of A-Z a-z 0-9 _ - . : (no '=', which separates a
// pair).
func ValidMetadataKey(k string) bool {
	if k == "" || len(k) > MaxMetadataKeyLen {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == ':') {
			return false
		}
	}
	return true
}

func validMetadataValue(v string) bool {
	if len(v) > MaxMetadataValueLen || !utf8.ValidString(v) {
		return false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// MetadataPair is the indexed form of one metadata condition: "key=value".
// Stores and indexes keep a memory's pairs (see MetadataPairs) and select
// a filter's key by any of its pairs.
func MetadataPair(key, value string) string { return key + "=" + value }

// MetadataPairs returns the filterable key=value pairs of a memory's
// metadata, sorted and unique: for each top-level key that
// ValidMetadataKey accepts, its value when it is a string, a number (its
// JSON literal, "1.5") or a boolean ("true", "false"), and each such
// element when it is an array ("tags": ["a","b"] gives tags=a and tags=b).
// Nulls, objects, values longer than MaxMetadataValueLen and pairs past
// MaxMetadataPairs are not filterable.
func MetadataPairs(raw json.RawMessage) []string {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		if ValidMetadataKey(k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	seen := map[string]bool{}
	var out []string
	add := func(k string, v json.RawMessage) {
		s, ok := scalar(v)
		if !ok || !validMetadataValue(s) {
			return
		}
		p := MetadataPair(k, s)
		if !seen[p] && len(out) < MaxMetadataPairs {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, k := range keys {
		v := bytes.TrimSpace(obj[k])
		if len(v) > 0 && v[0] == '[' {
			var arr []json.RawMessage
			if json.Unmarshal(v, &arr) == nil {
				for _, e := range arr {
					add(k, e)
				}
			}
			continue
		}
		add(k, v)
	}
	sort.Strings(out)
	return out
}

// scalar renders a JSON string, number or boolean as its filter value.
func scalar(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "", false
	}
	switch c := v[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return s, true
	case c == 't' || c == 'f':
		return string(v), string(v) == "true" || string(v) == "false"
	case c == '-' || c >= '0' && c <= '9':
		var n json.Number
		if json.Unmarshal(v, &n) != nil {
			return "", false
		}
		return n.String(), true
	}
	return "", false
}

// MetadataFilter selects memories by metadata: every key must hold one of
// its values (equality when one value is given, "in" for several). Keys
// and values follow MetadataPairs: a number is matched by its JSON
// literal, a boolean by "true" or "false", an array by any element.
type MetadataFilter map[string][]string

// UnmarshalJSON accepts {"KEY": "v"}, {"KEY": ["v1", "v2"]}, and numbers
// or booleans for values ({"n": 1, "done": true}).
func (mf *MetadataFilter) UnmarshalJSON(b []byte) error {
	if string(bytes.TrimSpace(b)) == "null" {
		*mf = nil
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return Errorf(EINVALID, "metadata: must be an object of key: value or key: [values]")
	}
	out := MetadataFilter{}
	for k, v := range obj {
		v = bytes.TrimSpace(v)
		var vals []json.RawMessage
		if len(v) > 0 && v[0] == '[' {
			if err := json.Unmarshal(v, &vals); err != nil {
				return Errorf(EINVALID, "metadata.%s: not a valid array", k)
			}
		} else {
			vals = []json.RawMessage{v}
		}
		for _, e := range vals {
			s, ok := scalar(e)
			if !ok {
				return Errorf(EINVALID, "metadata.%s: values must be strings, numbers or booleans", k)
			}
			out[k] = append(out[k], s)
		}
		if len(vals) == 0 {
			out[k] = []string{}
		}
	}
	*mf = out
	return nil
}

// Validate checks the filter's limits; errors are EINVALID naming
// metadata.KEY.
func (mf MetadataFilter) Validate() error {
	if len(mf) > MaxMetadataKeys {
		return Errorf(EINVALID, "metadata: %d keys exceed the limit of %d", len(mf), MaxMetadataKeys)
	}
	for _, k := range mf.Keys() {
		vs := mf[k]
		if !ValidMetadataKey(k) {
			return Errorf(EINVALID, "metadata.%s: keys are 1-%d of A-Z a-z 0-9 _ - . :", clip(k), MaxMetadataKeyLen)
		}
		if len(vs) == 0 {
			return Errorf(EINVALID, "metadata.%s: at least one value is required", k)
		}
		if len(vs) > MaxMetadataValues {
			return Errorf(EINVALID, "metadata.%s: %d values exceed the limit of %d", k, len(vs), MaxMetadataValues)
		}
		for _, v := range vs {
			if len(v) > MaxMetadataValueLen {
				return Errorf(EINVALID, "metadata.%s: a value is longer than %d bytes", k, MaxMetadataValueLen)
			}
			if !validMetadataValue(v) {
				return Errorf(EINVALID, "metadata.%s: a value holds a control character or invalid UTF-8", k)
			}
		}
	}
	return nil
}

func clip(k string) string {
	if len(k) > MaxMetadataKeyLen {
		k = k[:MaxMetadataKeyLen] + "…"
	}
	return strings.ToValidUTF8(k, "?")
}

// Keys returns the filter's keys, sorted (adapters render conditions in
// this order so that queries are stable).
func (mf MetadataFilter) Keys() []string {
	ks := make([]string, 0, len(mf))
	for k := range mf {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// Pairs returns the pairs that satisfy key k (see MetadataPair).
func (mf MetadataFilter) Pairs(k string) []string {
	out := make([]string, len(mf[k]))
	for i, v := range mf[k] {
		out[i] = MetadataPair(k, v)
	}
	return out
}

// Match reports whether a memory with the given sorted pairs satisfies
// every key of mf.
func (mf MetadataFilter) Match(pairs []string) bool {
	for k, vs := range mf {
		ok := false
		for _, v := range vs {
			p := MetadataPair(k, v)
			if i := sort.SearchStrings(pairs, p); i < len(pairs) && pairs[i] == p {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}
