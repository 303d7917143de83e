package client_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/client"
)

// allWorkstreams lists every page of the workstreams c sees acting as as.
func allWorkstreams(t *testing.T, c *client.Client, as client.Acting) []string {
	t.Helper()
	var ids []string
	p := client.Page{Limit: 1000}
	for {
		list, err := c.Workstreams(context.Background(), p, as)
		if err != nil {
			t.Fatalf("list acting as %+v: %v", as, err)
		}
		for _, w := range list.Workstreams {
			ids = append(ids, w.ID)
		}
		if list.NextCursor == "" {
			return ids
		}
		p.Cursor = list.NextCursor
	}
}

// TestWorkstreamsActingForAUser: an org key's read of the workstreams,
// listed or one by one, acting for Alice sees her block and the org's
// shared one, never Bob's; the admin view (acting for nobody) sees all.
func TestWorkstreamsActingForAUser(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	alice, bob := "alice-ws-"+u, "bob-ws-"+u
	aliceWS, bobWS, sharedWS := "ws-alice-"+u, "ws-bob-"+u, "ws-shared-"+u
	for _, w := range []client.NewWorkstream{
		{ID: aliceWS, Visibility: "user", UserID: alice},
		{ID: bobWS, Visibility: "user", UserID: bob},
		{ID: sharedWS, Visibility: "shared"},
	} {
		got, err := c.CreateWorkstream(ctx, w)
		if err != nil || got.Visibility != w.Visibility || got.UserID != w.UserID {
			t.Fatalf("create %s: %+v %v", w.ID, got, err)
		}
		t.Cleanup(func() { _ = c.DeleteWorkstream(context.Background(), w.ID) })
	}
	for _, tc := range []struct {
		name         string
		as           client.Acting
		seen, hidden []string
	}{
		{"acting for Alice", client.Acting{UserID: alice}, []string{aliceWS, sharedWS}, []string{bobWS}},
		{"acting for Bob", client.Acting{UserID: bob}, []string{bobWS, sharedWS}, []string{aliceWS}},
		{"the admin view", client.Acting{}, []string{aliceWS, bobWS, sharedWS}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			listed := allWorkstreams(t, c, tc.as)
			for _, id := range tc.seen {
				if !slices.Contains(listed, id) {
					t.Errorf("%s is not listed", id)
				}
				if w, err := c.Workstream(ctx, id, tc.as); err != nil || w.ID != id {
					t.Errorf("get %s: %+v %v", id, w, err)
				}
			}
			for _, id := range tc.hidden {
				if slices.Contains(listed, id) {
					t.Errorf("%s is listed", id)
				}
				if _, err := c.Workstream(ctx, id, tc.as); client.ErrorCode(err) != client.CodeNotFound {
					t.Errorf("get %s: %v, want not found", id, err)
				}
			}
		})
	}
}

// TestKnowledgeScopeMessageRange: a knowledge query scoped to a range of
// a session's messages (by id, by time) returns the range's turns only,
// and the turns' topic sentences are listed with the topics (kind sentence).
func TestKnowledgeScopeMessageRange(t *testing.T) {
	ctx := context.Background()
	c := newClient(t, srv.org)
	u := unique(t)
	session := "sess-" + u
	base := time.Now().Add(-time.Hour).Truncate(time.Second)
	var ids []string
	for i, text := range []string{
		"Ana booked a hike in the Dolomites",
		"Bo packed boots for the Dolomites",
		"Cy bought maps of the Dolomites",
		"Di printed tickets for the Dolomites",
	} {
		res, err := c.Create(ctx, client.NewMemory{Type: "message", SessionID: session, EntityID: "speaker-" + u,
			CreatedAt: base.Add(time.Duration(i) * time.Minute).UnixMilli(), Content: client.Content{Text: text + " " + u}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.ID)
	}
	from, to := base.Add(time.Minute), base.Add(3*time.Minute)
	for _, tc := range []struct {
		name  string
		scope client.KnowledgeScope
		want  []string
	}{
		{"the whole session", client.KnowledgeScope{SessionID: session}, ids},
		{"by message ids", client.KnowledgeScope{SessionID: session, FromMessageID: ids[1], ToMessageID: ids[2]}, ids[1:3]},
		{"from a message on", client.KnowledgeScope{SessionID: session, FromMessageID: ids[2]}, ids[2:]},
		{"by time", client.KnowledgeScope{SessionID: session, FromTime: &from, ToTime: &to}, ids[1:3]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := c.KnowledgeSearch(ctx, client.KnowledgeSearchRequest{Query: client.KnowledgeQuery{
				Select: map[string]any{"entity": map[string]any{"name": "Dolomites"}}, Scope: &tc.scope, Limit: 50}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range out.Memories {
				got = append(got, m.Memory.ID)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Fatalf("memories %v, want %v", got, want)
			}
		})
	}
	// Each turn has a topic sentence, listed beside the topics.
	page, err := c.KnowledgeTopics(ctx, client.KnowledgeListOptions{Filter: client.Filter{SessionID: session}, Limit: 100})
	if err != nil || !slices.ContainsFunc(page.Items, func(it client.KnowledgeListItem) bool { return it.Kind == "sentence" }) {
		t.Fatalf("the session's topics have no sentence: %+v %v", page, err)
	}
	_, err = c.KnowledgeSearch(ctx, client.KnowledgeSearchRequest{Query: client.KnowledgeQuery{
		Terms: []string{"dolomites"}, Scope: &client.KnowledgeScope{FromPosition: new(1)}}})
	if client.ErrorCode(err) != client.CodeInvalid {
		t.Fatalf("a position range without a document: %v, want invalid", err)
	}
}
