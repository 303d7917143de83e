package hashing

import (
	"context"
	"math"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

func cos(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbed(t *testing.T) {
	e := New(256)
	texts := []string{
		"I love hiking in the mountains",
		"Hiking mountain trails is what I love",
		"The quarterly invoice is overdue",
		"",
		"the and of",
	}
	vs, err := e.Embed(context.Background(), texts, memory.PurposeDocument)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vs[:3] {
		var n float64
		for _, x := range v {
			n += float64(x) * float64(x)
		}
		if len(v) != 256 || math.Abs(n-1) > 1e-5 {
			t.Fatalf("vector %d: %d dims, squared norm %v", i, len(v), n)
		}
	}
	for i := 3; i < 5; i++ {
		for _, x := range vs[i] {
			if x != 0 {
				t.Fatalf("text %q (no content words) embeds to a non-zero vector", texts[i])
			}
		}
	}
	near, far := cos(vs[0], vs[1]), cos(vs[0], vs[2])
	if near < 0.3 || far > 0.15 || near <= far {
		t.Fatalf("similar texts %.3f, unrelated %.3f", near, far)
	}
	again, _ := e.Embed(context.Background(), texts[:1], memory.PurposeQuery)
	if cos(again[0], vs[0]) < 0.999999 {
		t.Fatal("embedding is not deterministic")
	}
	if e.Model() != "hashembed-v1-256" || e.Dimensions() != 256 {
		t.Fatalf("model %s dims %d", e.Model(), e.Dimensions())
	}
}
