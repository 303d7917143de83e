package main

import (
	"context"
	"fmt"
	"net/url"

	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
)

// operation is one API operation measured: prepare (not counted) readies
// call i, call (counted) makes it.
type operation struct {
	name    string
	prepare func(ctx context.Context, i int) error
	call    func(ctx context.Context, i int) error
}

// fixture is what the operations share: the seeded memories' ids and the
// import file.
type fixture struct {
	h       *harness
	ids     []string // seeded memories of orgMain, one per call to get and update
	victims []string // memories the delete calls remove, made by prepare
	export  []byte   // 100 memories of orgSource as NDJSON, with embeddings
	authKey string   // a key kept in the store, for the authorizer's lookup
}

var (
	people = []string{"Dana", "Ana", "Priya", "Tomas", "Mei", "Kofi", "Lena", "Ravi"}
	likes  = []string{"jasmine tea in the afternoon", "hiking in the Alps", "a window seat on long flights",
		"vegetarian food, no mushrooms", "morning meetings before ten", "jazz records from the sixties",
		"cycling to work when it is dry", "reading science fiction on weekends"}
	places = []string{"Lisbon", "Nairobi", "Osaka", "Toronto", "Berlin", "Lima"}
)

// text is a memory of a realistic length (80 to 140 characters).
func text(i int) string {
	return fmt.Sprintf("%s prefers %s and is planning a trip to %s in week %d of the project.",
		people[i%len(people)], likes[(i/3)%len(likes)], places[(i/7)%len(places)], i)
}

func fact(i int) map[string]any {
	return map[string]any{"type": "fact", "kind": "preference", "importance": 0.6,
		"content": map[string]any{"text": text(i)}, "entityId": people[i%len(people)]}
}

// seed fills orgMain with n memories and orgSource with the 100 the
// import file holds, and stores a key for the authorizer's lookup.
func (f *fixture) seed(ctx context.Context, n int) error {
	for start := 0; start < n; start += 50 {
		batch := []map[string]any{}
		for i := start; i < start+50 && i < n; i++ {
			batch = append(batch, fact(i))
		}
		var out struct {
			Memories []struct {
				ID string `json:"id"`
			} `json:"memories"`
		}
		if err := f.h.call(orgMain, "POST", "/v1/memories", map[string]any{"memories": batch}, &out); err != nil {
			return err
		}
		for _, m := range out.Memories {
			f.ids = append(f.ids, m.ID)
		}
	}
	for start := 0; start < 100; start += 50 {
		batch := []map[string]any{}
		for i := start; i < start+50; i++ {
			batch = append(batch, fact(100000+i))
		}
		if err := f.h.call(orgSource, "POST", "/v1/memories", map[string]any{"memories": batch}, nil); err != nil {
			return err
		}
	}
	if err := f.h.call(orgSource, "GET", "/v1/export?embeddings=true", nil, &f.export); err != nil {
		return err
	}
	secret, k, err := auth.NewKey(orgMain, "", "bench", memory.AllGrants, nowTime())
	if err != nil {
		return err
	}
	f.authKey = secret
	return f.h.backend.Store.CreateKey(ctx, k)
}

// operations are measured in this order.
func (f *fixture) operations() []operation {
	none := func(context.Context, int) error { return nil }
	h := f.h
	ops := []operation{
		{"create 1 memory (POST /v1/memories)", none, func(_ context.Context, i int) error {
			return h.call(orgMain, "POST", "/v1/memories", fact(10000+i), nil)
		}},
		{"create a batch of 10", none, func(_ context.Context, i int) error {
			batch := []map[string]any{}
			for j := 0; j < 10; j++ {
				batch = append(batch, fact(20000+10*i+j))
			}
			return h.call(orgMain, "POST", "/v1/memories", map[string]any{"memories": batch}, nil)
		}},
		{"1 message turn (POST /v1/messages, extraction queued)", none, func(_ context.Context, i int) error {
			msg := map[string]any{"roomId": "chat-1", "entityId": people[i%len(people)], "content": map[string]any{"text": text(30000 + i)}}
			return h.call(orgMain, "POST", "/v1/messages", map[string]any{"messages": []any{msg}}, nil)
		}},
		{"get 1 memory", none, func(_ context.Context, i int) error {
			return h.call(orgMain, "GET", "/v1/memories/"+f.ids[i%len(f.ids)], nil, nil)
		}},
		{"list 20", none, func(context.Context, int) error {
			return h.call(orgMain, "GET", "/v1/memories?limit=20", nil, nil)
		}},
		{"count", none, func(context.Context, int) error {
			return h.call(orgMain, "GET", "/v1/memories/count", nil, nil)
		}},
	}
	for _, mode := range []string{"keyword", "semantic", "hybrid", "knowledge", "full"} {
		ops = append(ops, operation{"search k=10, mode " + mode, none, func(_ context.Context, i int) error {
			q := fmt.Sprintf("what does %s prefer for %s?", people[i%len(people)], places[i%len(places)])
			return h.call(orgMain, "POST", "/v1/search", map[string]any{"query": q, "k": 10, "mode": mode}, nil)
		}})
	}
	return append(ops, f.moreOperations()...)
}

// moreOperations are the context, the writes that change or remove, the
// knowledge query, the import and the authorizer's lookup.
func (f *fixture) moreOperations() []operation {
	none := func(context.Context, int) error { return nil }
	h := f.h
	return []operation{
		{"context (POST /v1/context, 1,500 tokens)", none, func(_ context.Context, i int) error {
			q := "plan the trip to " + places[i%len(places)] + " with " + people[i%len(people)]
			return h.call(orgMain, "POST", "/v1/context", map[string]any{"query": q, "budgetTokens": 1500}, nil)
		}},
		{"update 1 memory (PATCH)", none, func(_ context.Context, i int) error {
			body := map[string]any{"content": map[string]any{"text": text(40000 + i)}, "importance": 0.9}
			return h.call(orgMain, "PATCH", "/v1/memories/"+f.ids[(i+1)%len(f.ids)], body, nil)
		}},
		{"delete 1 memory", func(_ context.Context, i int) error {
			var out struct {
				ID string `json:"id"`
			}
			if err := h.call(orgMain, "POST", "/v1/memories", fact(50000+i), &out); err != nil {
				return err
			}
			f.victims = append(f.victims, out.ID)
			return nil
		}, func(_ context.Context, i int) error {
			return h.call(orgMain, "DELETE", "/v1/memories/"+f.victims[i], nil, nil)
		}},
		{"forget an entity with 3 memories (POST /v1/forget)", func(_ context.Context, i int) error {
			batch := []map[string]any{}
			for j := 0; j < 3; j++ {
				m := fact(60000 + 3*i + j)
				m["entityId"] = fmt.Sprintf("leaver-%d", i)
				batch = append(batch, m)
			}
			return h.call(orgMain, "POST", "/v1/memories", map[string]any{"memories": batch}, nil)
		}, func(_ context.Context, i int) error {
			return h.call(orgMain, "POST", "/v1/forget", map[string]any{"entity": fmt.Sprintf("leaver-%d", i)}, nil)
		}},
		{"knowledge query (POST /v1/knowledge/search)", none, func(_ context.Context, i int) error {
			q := "what does " + people[i%len(people)] + " prefer?"
			return h.call(orgMain, "POST", "/v1/knowledge/search", map[string]any{"text": q, "limit": 10}, nil)
		}},
		{"import 100 memories (POST /v1/import)", none, func(_ context.Context, i int) error {
			return h.call(importOrgNames()[i%importOrgs], "POST", "/v1/import", f.export, nil)
		}},
		{"authorizer: key lookup (uncached)", none, func(ctx context.Context, _ int) error {
			_, err := auth.StoreKeys{Store: h.backend.Store}.Authenticate(ctx, f.authKey)
			return err
		}},
		{"list entities (GET /v1/knowledge/entities)", none, func(context.Context, int) error {
			return h.call(orgMain, "GET", "/v1/knowledge/entities?"+url.Values{"limit": {"20"}}.Encode(), nil, nil)
		}},
	}
}
