package service_test

import (
	"github.com/agentmem/agentmem/pkg/service"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentmem/agentmem/pkg/memory"
)

func turn(room, speaker, say string, at int64) service.NewMemory {
	return service.NewMemory{Type: memory.TypeMessage, RoomID: room, EntityID: speaker, Content: text(say), CreatedAt: at}
}

// TestMessagesCarryThePrecedingTurn checks the Context the service gives
// messages: the turn before in the same conversation and scope, from the
// batch or from the store.
func TestMessagesCarryThePrecedingTurn(t *testing.T) {
	b := open(t)
	s := b.Service
	const t0 = int64(1_700_000_000_000)
	long := strings.Repeat("word ", 300)
	first := create(t, s, orgA,
		turn("r1", "Ana", "How long have you been married?", t0),
		turn("r2", "Cy", "Anyone up for tennis?", t0+1),
		turn("r1", "Bo", "5 years already!", t0+2),
		service.NewMemory{Type: memory.TypeFact, RoomID: "r1", Content: text("Bo has been married for 5 years"), CreatedAt: t0 + 3},
	)
	second := create(t, s, orgA, turn("r1", "Ana", "Congratulations!", t0+10), turn("r1", "Bo", long, t0+11), turn("r1", "Ana", "That was long.", t0+12))
	private := create(t, s, agentX, turn("r1", "Xavier", "a secret only agent x may see", t0+20))
	after := create(t, s, orgA, turn("r1", "Bo", "Anyway, back to the wedding", t0+30))
	scoped := create(t, s, agentX, turn("r1", "Xavier", "and another private turn", t0+40))
	noRoom := create(t, s, orgA, service.NewMemory{Type: memory.TypeMessage, EntityID: "Ana", Content: text("no conversation"), CreatedAt: t0 + 50})

	cases := []struct {
		name    string
		caller  memory.Caller
		id      string
		context string
	}{
		{"first turn of a room", orgA, first[0].ID, ""},
		{"first turn of another room", orgA, first[1].ID, ""},
		{"from the batch, skipping the other room", orgA, first[2].ID, "Ana: How long have you been married?"},
		{"facts get none", orgA, first[3].ID, ""},
		{"from the store, across batches", orgA, second[0].ID, "Bo: 5 years already!"},
		{"an agent's private turn is never another scope's context", orgA, after[0].ID, "Ana: That was long."},
		{"an agent's turn follows its own scope", agentX, scoped[0].ID, "Xavier: a secret only agent x may see"},
		{"a private turn after org turns", agentX, private[0].ID, ""},
		{"no room or session", orgA, noRoom[0].ID, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := s.Get(ctx, c.caller, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if m.Context != c.context {
				t.Fatalf("context %q, want %q", m.Context, c.context)
			}
		})
	}
	m, _ := s.Get(ctx, orgA, second[2].ID)
	if n := utf8.RuneCountInString(m.Context); n > len("Bo: ")+service.MaxContextRunes+1 || !strings.HasSuffix(m.Context, "…") {
		t.Fatalf("a long turn as context: %d characters, %q...", n, m.Context[:40])
	}
	// The answer is found by the question's words, which it never says.
	res, err := s.Search(ctx, orgA, service.SearchRequest{Query: "how long has Bo been married", Mode: service.ModeKeyword, K: 3, Filter: memory.Filter{Types: []memory.Type{memory.TypeMessage}}})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range res {
		found = found || r.Memory.ID == first[2].ID
	}
	if !found {
		t.Fatalf("the answer turn is not among %d results", len(res))
	}
}

// TestKeywordTextCarriesTheDay checks what each index receives: the day a
// message was said goes to the keyword index only.
func TestKeywordTextCarriesTheDay(t *testing.T) {
	may8 := int64(1683504000000) // 2023-05-08 00:00 UTC
	cases := []struct {
		name          string
		m             memory.Memory
		search, words string
	}{
		{"message", memory.Memory{Type: memory.TypeMessage, EntityID: "Ana", Content: text("I moved"), CreatedAt: may8 + 3600_000},
			"Ana: I moved", "Ana: I moved\n(8 May 2023)"},
		{"message late in the UTC day", memory.Memory{Type: memory.TypeMessage, Content: text("hi"), CreatedAt: may8 + 86_399_000},
			"hi", "hi\n(8 May 2023)"},
		{"message with context", memory.Memory{Type: memory.TypeMessage, EntityID: "Bo", Context: "Ana: How long?", Content: text("5 years"), CreatedAt: may8},
			"Bo: Ana: How long?\nBo: 5 years", "Bo: Ana: How long?\nBo: 5 years\n(8 May 2023)"},
		{"fact", memory.Memory{Type: memory.TypeFact, Content: text("Ana lives in Oslo"), CreatedAt: may8},
			"Ana lives in Oslo", "Ana lives in Oslo"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.m.SearchText(); got != c.search {
				t.Errorf("SearchText %q, want %q", got, c.search)
			}
			if got := c.m.KeywordText(); got != c.words {
				t.Errorf("KeywordText %q, want %q", got, c.words)
			}
		})
	}
}

// TestContextStaysWithItsReaders checks that a message's Context is a turn
// every reader of the message may read: an end user's own turn in a room
// is skipped for the room's reply (from the batch and from the store), and
// the reply is not found by its words.
func TestContextStaysWithItsReaders(t *testing.T) {
	b := open(t)
	s := b.Service
	const t0 = int64(1_700_000_000_000)
	msg := func(user, vis, say string, at int64) service.NewMemory {
		return service.NewMemory{Type: memory.TypeMessage, RoomID: "r1", WorldID: "w1", EntityID: user, UserID: user, Visibility: vis, Content: text(say), CreatedAt: at}
	}
	greet := service.NewMemory{Type: memory.TypeMessage, RoomID: "r1", WorldID: "w1", EntityID: "host", Content: text("Welcome to the planning room"), CreatedAt: t0}
	batch := create(t, s, orgA, greet,
		msg("bob", "user", "between us, the spare key is under the flowerpot", t0+1),
		msg("alice", "room", "Sounds good", t0+2),
		msg("bob", "user", "and mind the dog", t0+3),
		msg("alice", "user", "noted", t0+4))
	stored := create(t, s, orgA, msg("bob", "user", "my pin is 4711", t0+10))
	later := create(t, s, orgA, msg("alice", "room", "See you all tomorrow", t0+11), msg("bob", "room", "Bye", t0+12))
	cases := []struct {
		name, id, context string
	}{
		{"a room reply skips a user's own turn in the batch", batch[2].ID, "host: Welcome to the planning room"},
		{"a user's turn follows the room's", batch[3].ID, "alice: Sounds good"},
		{"a user's turn skips another user's", batch[4].ID, "alice: Sounds good"},
		{"a user's turn follows their own", stored[0].ID, "bob: and mind the dog"},
		{"a room reply skips a user's own turn in the store", later[0].ID, "alice: Sounds good"},
		{"a room reply follows the room's", later[1].ID, "alice: See you all tomorrow"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := s.Get(ctx, orgA, c.id)
			if err != nil {
				t.Fatal(err)
			}
			if m.Context != c.context {
				t.Fatalf("context %q, want %q", m.Context, c.context)
			}
		})
	}
	// Deleting the welcome re-threads the reply after it: to nothing, not
	// to Bob's own turn between them.
	if _, err := s.Delete(ctx, orgA, batch[0].ID, service.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Get(ctx, orgA, batch[2].ID); err != nil || m.Context != "" {
		t.Fatalf("after the welcome is deleted, the reply's context is %q (%v), want none", m.Context, err)
	}
	alice, err := s.Act(ctx, orgA, memory.Acting{UserID: "alice", RoomID: "r1", WorldID: "w1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, alice, service.SearchRequest{Query: "spare key flowerpot pin 4711", Mode: service.ModeKeyword, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.Contains(r.Memory.Context, "flowerpot") || strings.Contains(r.Memory.Context, "4711") {
			t.Errorf("Alice finds %q, whose context is Bob's own turn %q", r.Memory.Content.Text, r.Memory.Context)
		}
	}
}
