package synth

import (
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestGolden pins the corpus: the benchmarks' published figures were
// measured on it, so a change to the generator (or to the order of its
// random draws) must be deliberate. The digest is that of the generator as
// it was in cmd/bench-latency before it moved here.
func TestGolden(t *testing.T) {
	tests := []struct {
		name string
		seed uint64
		want string
	}{
		{"seed 1, 1000 memories, 20 queries, 20 words", 1, "7da33049975c0986a3da9a5a1508f948102e5c75ed7e9114b7fb9c7d10c4189e"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := New(tc.seed)
			h := sha256.New()
			for i := range 1000 {
				m := g.Memory(i)
				fmt.Fprintf(h, "%s|%s|%s|%s|%s|%d\n", m.Type, m.Text, m.RoomID, m.EntityID, m.DocumentID, m.CreatedAt)
			}
			for range 20 {
				fmt.Fprintf(h, "%s\n", g.Query())
			}
			for range 20 {
				fmt.Fprintf(h, "%s\n", g.Word())
			}
			if got := fmt.Sprintf("%x", h.Sum(nil)); got != tc.want {
				t.Errorf("digest %s, want %s: the synthetic corpus changed", got, tc.want)
			}
		})
	}
}

func TestMemory(t *testing.T) {
	g := New(1)
	for i := range 200 {
		m := g.Memory(i)
		if want := fmt.Sprintf(" (%d)", i); len(m.Text) <= len(want) || m.Text[len(m.Text)-len(want):] != want {
			t.Fatalf("memory %d: text %q does not end with %q", i, m.Text, want)
		}
		if (m.Type == memory.TypeFragment) != (m.DocumentID != "") {
			t.Fatalf("memory %d: type %s with document %q", i, m.Type, m.DocumentID)
		}
	}
}
