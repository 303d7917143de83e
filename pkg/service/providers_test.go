package service_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/workstream"
)

// sectionNames lists res's sections by provider.
func sectionNames(res *service.ContextResult) []string {
	var out []string
	for _, s := range res.Sections {
		out = append(out, s.Provider)
	}
	return out
}

func TestContextFromChosenProviders(t *testing.T) {
	b := open(t, service.WithContextCache(100, time.Minute))
	s := b.Service
	create(t, s, agentX, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact},
		service.NewMemory{Content: text("we always write tests first"), Type: memory.TypeFact, Durability: memory.DurabilityCore})
	for i := range 30 { // more turns than the facts' share holds: the room's newest others are recent
		create(t, s, agentX, service.NewMemory{Content: text(fmt.Sprintf("turn %d: lunch at noon again", i)), Type: memory.TypeMessage, RoomID: "r1", EntityID: "ann"})
	}
	_, err := b.Workstreams.Create(ctx, agentX, workstream.NewWorkstream{ID: "launch", Name: "Launch"})
	wantCode(t, "create workstream", err, "")
	_, err = b.Workstreams.Append(ctx, agentX, "launch", workstream.NewEntry{Role: "chief", Text: "ship on Friday"})
	wantCode(t, "append", err, "")

	req := service.ContextRequest{Query: "when is the launch", RoomID: "r1", WorkstreamID: "launch", BudgetTokens: 700,
		ReserveTokens: 500, Providers: []string{"block", "facts", "recent"}, MessageID: "m-1"}
	res, err := s.BuildContext(ctx, agentX, req)
	wantCode(t, "context", err, "")
	if got := strings.Join(sectionNames(res), ","); got != "block,facts,recent" {
		t.Fatalf("sections %s, want block,facts,recent", got)
	}
	sum := 0
	for _, sec := range res.Sections {
		if sec.Tokens == 0 {
			t.Errorf("section %s reports no tokens: %+v", sec.Provider, sec)
		}
		sum += sec.Tokens
	}
	if sum != res.UsedTokens || res.UsedTokens > 700-500 || res.ReserveTokens != 500 || res.Cached {
		t.Fatalf("used %d (sections %d), reserve %d, cached %v: want within 200", res.UsedTokens, sum, res.ReserveTokens, res.Cached)
	}
	block, facts, recent := strings.Index(res.Context, "## Memory block"), strings.Index(res.Context, "## Relevant knowledge"), strings.Index(res.Context, "## Recent conversation")
	if block != 0 || facts < block || recent < facts || strings.Contains(res.Context, "## Core memories") {
		t.Fatalf("the sections are out of order:\n%s", res.Context)
	}

	again, err := s.BuildContext(ctx, agentX, req)
	wantCode(t, "the same request", err, "")
	if !again.Cached || again.Context != res.Context {
		t.Fatalf("a second identical request is not the cached one: cached %v", again.Cached)
	}
	for _, tc := range []struct {
		name string
		c    memory.Caller
		r    func(service.ContextRequest) service.ContextRequest
	}{
		{"another message", agentX, func(r service.ContextRequest) service.ContextRequest { r.MessageID = "m-2"; return r }},
		{"another budget", agentX, func(r service.ContextRequest) service.ContextRequest { r.BudgetTokens = 800; return r }},
		{"another order", agentX, func(r service.ContextRequest) service.ContextRequest {
			r.Providers = []string{"recent", "facts", "block"}
			return r
		}},
		{"acting for a user", memory.Caller{OrgID: "org-a", AgentID: "x", Acting: &memory.Acting{UserID: "bob"}}, func(r service.ContextRequest) service.ContextRequest { return r }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.BuildContext(ctx, tc.c, tc.r(req))
			wantCode(t, "context", err, "")
			if got.Cached {
				t.Fatal("served from the cache of another request")
			}
		})
	}

	// A write in the org, here by another agent, makes the cache stale.
	create(t, s, agentY, service.NewMemory{Content: text("y's note"), Type: memory.TypeFact})
	after, err := s.BuildContext(ctx, agentX, req)
	wantCode(t, "after a write", err, "")
	if after.Cached {
		t.Fatal("a write did not invalidate the cached context")
	}
	if again, err := s.BuildContext(ctx, agentX, req); err != nil || !again.Cached {
		t.Fatalf("composed again, not cached: %v", err)
	}
	// Another org's write does not.
	create(t, s, orgB, service.NewMemory{Content: text("org b's note"), Type: memory.TypeFact})
	if again, err := s.BuildContext(ctx, agentX, req); err != nil || !again.Cached {
		t.Fatalf("another org's write invalidated the cache: %v", err)
	}
	s.Invalidate("org-a")
	if again, err := s.BuildContext(ctx, agentX, req); err != nil || again.Cached {
		t.Fatalf("Invalidate left the cache: %v", err)
	}
	// An append to the block, through the workstreams, does too.
	_, err = b.Workstreams.Append(ctx, agentX, "launch", workstream.NewEntry{Role: "cto", Text: "freeze the schema"})
	wantCode(t, "append", err, "")
	after, err = s.BuildContext(ctx, agentX, req)
	wantCode(t, "after an append", err, "")
	if after.Cached || !strings.Contains(after.Context, "- cto: freeze the schema") {
		t.Fatalf("an append did not invalidate the cached context (cached %v):\n%s", after.Cached, after.Context)
	}
}

func TestContextWithoutCacheOrMessageIsComposed(t *testing.T) {
	for _, tc := range []struct {
		name  string
		opts  []service.Option
		msgID string
	}{
		{"no cache", nil, "m-1"},
		{"no message id", []service.Option{service.WithContextCache(10, time.Minute)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := open(t, tc.opts...)
			create(t, b.Service, agentX, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact})
			req := service.ContextRequest{Query: "launch", MessageID: tc.msgID}
			for i := range 2 {
				res, err := b.Service.BuildContext(ctx, agentX, req)
				wantCode(t, "context", err, "")
				if res.Cached {
					t.Fatalf("request %d served from a cache", i)
				}
			}
		})
	}
}

func TestContextProvidersRejectBadInput(t *testing.T) {
	s := open(t).Service
	for _, tc := range []struct {
		name, field string
		r           service.ContextRequest
	}{
		{"an unknown provider", "providers[1]", service.ContextRequest{Query: "q", Providers: []string{"facts", "gossip"}}},
		{"a provider twice", "providers[1]", service.ContextRequest{Query: "q", Providers: []string{"facts", "facts"}}},
		{"a negative reserve", "reserveTokens", service.ContextRequest{Query: "q", ReserveTokens: -1}},
		{"a reserve of the whole budget", "reserveTokens", service.ContextRequest{Query: "q", BudgetTokens: 100, ReserveTokens: 100}},
		{"a message id with a control character", "messageId", service.ContextRequest{Query: "q", MessageID: "a\x01"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.BuildContext(ctx, agentX, tc.r)
			wantCode(t, "context", err, memory.EINVALID)
			if !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("%v does not name %s", err, tc.field)
			}
		})
	}
}

func TestDefaultProvidersAreTheFixedSections(t *testing.T) {
	b := open(t)
	create(t, b.Service, agentX, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact})
	res, err := b.Service.BuildContext(ctx, agentX, service.ContextRequest{Query: "launch", RoomID: "r1"})
	wantCode(t, "context", err, "")
	var names []string
	for _, sec := range res.Sections {
		names = append(names, sec.Name+"/"+sec.Provider)
	}
	want := "core/core,recent/recent,knowledge/facts"
	if len(names) == 4 {
		want = "core/core,recent/recent,structured/knowledge,knowledge/facts"
	}
	if got := strings.Join(names, ","); got != want {
		t.Fatalf("default sections %s, want %s", got, want)
	}
}

// Core memories are seeded by visibility: a user's core memory is in the
// context served to that user only.
func TestCoreMemoriesFollowTheAudience(t *testing.T) {
	b := open(t)
	s := b.Service
	create(t, s, orgA, service.NewMemory{Content: text("Bob is allergic to peanuts"), Type: memory.TypeFact,
		Durability: memory.DurabilityCore, Visibility: "user", UserID: "bob"},
		service.NewMemory{Content: text("the office opens at nine"), Type: memory.TypeFact, Durability: memory.DurabilityCore})
	for _, tc := range []struct {
		user      string
		sees      bool
		providers []string
	}{
		{"bob", true, nil},
		{"alice", false, nil},
		{"bob", true, []string{"core"}},
		{"alice", false, []string{"core"}},
	} {
		t.Run(tc.user, func(t *testing.T) {
			c, err := s.Act(ctx, orgA, memory.Acting{UserID: tc.user})
			wantCode(t, "act", err, "")
			res, err := s.BuildContext(ctx, c, service.ContextRequest{Query: "what should I know", Providers: tc.providers})
			wantCode(t, "context", err, "")
			core := res.Sections[0]
			if core.Provider != "core" || !strings.Contains(res.Context, "the office opens at nine") {
				t.Fatalf("the shared core memory is missing:\n%s", res.Context)
			}
			if got := strings.Contains(res.Context, "peanuts"); got != tc.sees {
				t.Fatalf("acting for %s, Bob's core memory shown %v, want %v:\n%s", tc.user, got, tc.sees, res.Context)
			}
		})
	}
}

// The relations provider adds, one hop from what earlier sections placed
// (here the core section),
// the related memories the caller sees.
func TestContextRelationsProvider(t *testing.T) {
	b := open(t)
	s := b.Service
	xs := create(t, s, agentX, service.NewMemory{Content: text("the launch is on Friday"), Type: memory.TypeFact, Durability: memory.DurabilityCore},
		service.NewMemory{Content: text("the venue holds forty people"), Type: memory.TypeFact})
	y := create(t, s, agentY, service.NewMemory{Content: text("y's secret plan for the venue"), Type: memory.TypeFact})[0].ID
	_, err := s.CreateRelation(ctx, agentX, memory.Relation{FromID: xs[0].ID, ToID: xs[1].ID, Type: memory.RelDependsOn})
	wantCode(t, "relate", err, "")
	_, err = s.CreateRelation(ctx, orgA, memory.Relation{FromID: xs[0].ID, ToID: y, Type: memory.RelRelatesTo})
	wantCode(t, "relate across agents as the org", err, "")
	res, err := s.BuildContext(ctx, agentX, service.ContextRequest{Query: "when is the launch on Friday", BudgetTokens: 300,
		Providers: []string{"core", "relations"}})
	wantCode(t, "context", err, "")
	if strings.Contains(res.Context, "secret") {
		t.Fatalf("another agent's memory reached x's context:\n%s", res.Context)
	}
	rel := res.Sections[1]
	if rel.Provider != "relations" || res.UsedTokens > 300 {
		t.Fatalf("sections %v, used %d", sectionNames(res), res.UsedTokens)
	}
	if !strings.Contains(res.Context, "## Related\n- (depends_on "+xs[0].ID+") (fact/fact) the venue holds forty people") {
		t.Fatalf("the related fact is missing:\n%s", res.Context)
	}
}
