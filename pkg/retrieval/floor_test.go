package retrieval

import (
	"slices"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestFloor: the relevance floor leaves out only the results the semantic
// list alone ranked below it.
func TestFloor(t *testing.T) {
	res := func(id string, lists map[string]float64) Result {
		r := Result{Memory: &memory.Memory{ID: id}, Lists: map[string]*memory.ModeScore{}}
		for l, s := range lists {
			r.Lists[l] = &memory.ModeScore{Score: s, Rank: 1}
		}
		return r
	}
	in := []Result{
		res("near", map[string]float64{ListSemantic: 0.8}),
		res("far", map[string]float64{ListSemantic: 0.4}),
		res("far-but-a-word", map[string]float64{ListSemantic: 0.3, ListKeyword: 2.1}),
		res("named", map[string]float64{ListEntity: 1}),
	}
	tests := []struct {
		min  float64
		want []string
	}{
		{0, []string{"near", "far", "far-but-a-word", "named"}},
		{0.57, []string{"near", "far-but-a-word", "named"}},
		{0.9, []string{"far-but-a-word", "named"}},
	}
	for _, tc := range tests {
		var got []string
		for _, r := range floor(slices.Clone(in), tc.min) {
			got = append(got, r.Memory.ID)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("floor %v: %v, want %v", tc.min, got, tc.want)
		}
	}
}

func TestRelevanceFloorByModel(t *testing.T) {
	tests := []struct {
		model string
		want  float64
	}{
		{"bge-small-en-v1.5-int8-onnx", 0.57},
		{"hashembed-v1-128", 0.32},
		{"hashembed-v10-128", 0},
		{"amazon.titan-embed-text-v2:0", 0},
	}
	for _, tc := range tests {
		if got := RelevanceFloor(tc.model); got != tc.want {
			t.Errorf("RelevanceFloor(%q) = %v, want %v", tc.model, got, tc.want)
		}
	}
}
