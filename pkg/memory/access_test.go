package memory

import (
	"reflect"
	"testing"
)

func TestCountAccesses(t *testing.T) {
	tests := []struct {
		name     string
		ids      []string
		distinct []string
		counts   map[string]int64
	}{
		{"none", nil, nil, map[string]int64{}},
		{"once each", []string{"a", "b"}, []string{"a", "b"}, map[string]int64{"a": 1, "b": 1}},
		{"repeats, first order kept", []string{"b", "a", "b", "c", "b"}, []string{"b", "a", "c"}, map[string]int64{"a": 1, "b": 3, "c": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			distinct, counts := CountAccesses(tc.ids)
			if !reflect.DeepEqual(distinct, tc.distinct) || !reflect.DeepEqual(counts, tc.counts) {
				t.Fatalf("CountAccesses(%q) = %q, %v; want %q, %v", tc.ids, distinct, counts, tc.distinct, tc.counts)
			}
		})
	}
}
