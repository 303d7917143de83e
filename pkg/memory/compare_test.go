package memory

import (
	"sort"
	"testing"
)

func TestValueTypeOf(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want ValueType
	}{
		{"30", ValueNumber}, {"30 years", ValueNumber}, {"1,250.5", ValueNumber}, {"0.5 km", ValueNumber},
		{"2024-03-05", ValueDate}, {"2024-03", ValueDate}, {"march 5, 2024", ValueDate}, {"5 march 2024", ValueDate},
		{"march 2024", ValueDate}, {"2024-03-05t10:00:00z", ValueDate},
		{"unknown", ValueString}, {"3 4", ValueString}, {"0x1f", ValueString}, {"inf", ValueString}, {"nan", ValueString},
		{"a very long answer of many words", ValueString}, {"1 2 3 4", ValueString},
	} {
		if got, _ := ValueTypeOf(tt.v); got != tt.want {
			t.Errorf("%q: %s, want %s", tt.v, got, tt.want)
		}
	}
}

// TestKeysSortAsValues: the keys of numbers and dates sort as the values.
func TestKeysSortAsValues(t *testing.T) {
	for _, order := range [][]string{
		{"0.001", "0.5", "1", "2", "10", "100", "1,000", "1e6"},
		{"1969-12-31", "1970-01-01", "1999-12", "2001-02-03", "2024-03", "march 5, 2024", "2024-03-06"},
	} {
		keys := make([]string, len(order))
		for i, v := range order {
			_, keys[i] = ValueTypeOf(v)
		}
		if !sort.StringsAreSorted(keys) {
			t.Errorf("keys of %q do not sort in order: %q", order, keys)
		}
	}
}
