package client_test

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/client"
)

// TestUserVisibility writes a memory for each of two end users and reads
// as each: the fields the client sends (visibility, userId) are stored,
// the fields it reads come back, and a read acting for one user (List,
// Count, Search) never sees the other's.
func TestUserVisibility(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	alice, bob := "alice-"+u, "bob-"+u
	text := map[string]string{alice: "Alice keeps bees on the roof " + u, bob: "Bob keeps bees in the garden " + u}
	for _, user := range []string{alice, bob} {
		if _, err := c.Create(ctx, client.NewMemory{Type: "fact", Visibility: "user", UserID: user, Content: client.Content{Text: text[user]}}); err != nil {
			t.Fatalf("create for %s: %v", user, err)
		}
	}
	for _, tc := range []struct{ reader, other string }{{alice, bob}, {bob, alice}} {
		f := client.Filter{UserID: tc.reader}
		page, err := c.List(ctx, client.ListOptions{Filter: f, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		var mine int
		for _, m := range page.Memories {
			switch m.Content.Text {
			case text[tc.reader]:
				mine++
				if m.Visibility != "user" || m.UserID != tc.reader {
					t.Errorf("%s's memory reads visibility %q, userId %q", tc.reader, m.Visibility, m.UserID)
				}
			case text[tc.other]:
				t.Errorf("a list acting for %s shows %s's memory", tc.reader, tc.other)
			}
		}
		if mine != 1 {
			t.Errorf("a list acting for %s shows %d of their memories, want 1", tc.reader, mine)
		}
		res, err := c.Search(ctx, client.SearchRequest{Query: "keeps bees " + u, Mode: "keyword", K: 20, Filters: &f})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res.Results {
			if r.Memory.Content.Text == text[tc.other] {
				t.Errorf("a search acting for %s finds %s's memory", tc.reader, tc.other)
			}
		}
		if len(res.Results) == 0 {
			t.Errorf("a search acting for %s finds nothing", tc.reader)
		}
	}
	// The admin view (no user named) sees both.
	n, err := c.Count(ctx, client.Filter{Type: []string{"fact"}})
	if err != nil || n < 2 {
		t.Errorf("count in the admin view = %d, %v; want both users' memories", n, err)
	}
}
