package service

import (
	"context"
	"github.com/agentmem/agentmem/pkg/memory"
	"strings"
	"unicode/utf8"

	"golang.org/x/sync/errgroup"
)

// MaxContextRunes bounds a message's Context: the preceding turn is cut at
// a word boundary past this many characters.
const MaxContextRunes = 500

// conversation is the thread a message belongs to: its room, or its
// session when it has no room; "" when it has neither.
func conversation(m *memory.Memory) string {
	if m.Type != memory.TypeMessage {
		return ""
	}
	if m.RoomID != "" {
		return "room:" + m.RoomID
	}
	if m.SessionID != "" {
		return "session:" + m.SessionID
	}
	return ""
}

// conversationFilter selects the messages of m's conversation (its room,
// else its session) in m's scope (its agent's, or the org scope), archived
// ones included: the turns threading reads around m.
func conversationFilter(m *memory.Memory) memory.Filter {
	f := memory.Filter{OrgID: m.OrgID, AgentID: m.AgentID, Types: []memory.Type{memory.TypeMessage}, IncludeArchived: true}
	if f.AgentID == "" {
		f.AgentID = memory.OrgScope
	}
	if m.RoomID != "" {
		f.RoomID = m.RoomID
	} else {
		f.SessionID = m.SessionID
	}
	return f
}

// threadContext sets the Context of each new message: the turn before it
// in the same conversation and the same scope (org-wide or the same agent,
// so an agent's private turn never becomes searchable through another
// scope's memory) that every reader of the message may read
// (memory.MayHold: an end user's own turn is never the context of a reply
// the room reads; the turn before it is). The turn is taken from the batch
// when an earlier one precedes it there, otherwise from the store: the
// latest such message of the conversation created before it. A message
// inserted later between two stored turns does not change the context of
// the one after it.
func (s *Service) threadContext(ctx context.Context, ms []*memory.Memory) error {
	type key struct{ agent, conv string }
	threads := map[key]*thread{}
	prevs := make([]*memory.Memory, len(ms))
	var lookups []int // messages whose turn before is in the store
	for i, m := range ms {
		conv := conversation(m)
		if conv == "" {
			continue
		}
		k := key{m.AgentID, conv}
		t := threads[k]
		if t == nil {
			t = &thread{latest: map[string]*memory.Memory{}}
			threads[k] = t
		}
		if prev := t.before(m); prev != nil {
			prevs[i] = prev
		} else {
			lookups = append(lookups, i)
		}
		t.add(m)
	}
	// The store lookups run concurrently: a batch may open many rooms.
	var g errgroup.Group
	g.SetLimit(8)
	for _, i := range lookups {
		g.Go(func() (err error) {
			prevs[i], err = s.storedTurnBefore(ctx, ms[i], true)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for i, m := range ms {
		if prevs[i] != nil {
			m.Context = turnLine(prevs[i])
		}
	}
	return nil
}

// storedTurnBefore returns the latest stored message of m's conversation
// and scope created before it, nil if none; with held, only one m may hold
// (what its readers may read, memory.MayHold).
func (s *Service) storedTurnBefore(ctx context.Context, m *memory.Memory, held bool) (*memory.Memory, error) {
	f := conversationFilter(m)
	f.End = m.CreatedAt
	if held {
		f.Audiences = m.ReaderAudiences()
	}
	p, err := s.store.List(ctx, memory.ListQuery{Filter: f, Limit: 1})
	if err != nil {
		return nil, unavailable("store", err)
	}
	if len(p.Memories) == 0 {
		return nil, nil
	}
	return p.Memories[0], nil
}

// Rethread repairs the context of message m if it is a turn m may not hold
// (memory.MayHold): what threading wrote before it followed that rule, when
// an end user's own turn became the context of the reply after it. It
// reports whether it rewrote the context (re-embedded and re-indexed, as a
// deletion re-threads). Consolidation runs it once over every org.
func (s *Worker) Rethread(ctx context.Context, m *memory.Memory) (bool, error) {
	if m.Context == "" || conversation(m) == "" {
		return false, nil
	}
	prev, err := s.storedTurnBefore(ctx, m, false)
	if err != nil || prev == nil || turnLine(prev) != m.Context || m.MayHold(prev) {
		return false, err
	}
	return s.recontext(ctx, m.OrgID, m.ID, nil)
}

// thread is a conversation's turns in a batch so far: the latest of each
// audience (in the order the audiences came), and the time of the latest
// of all.
type thread struct {
	latest map[string]*memory.Memory
	order  []string
	end    int64
}

func (t *thread) add(m *memory.Memory) {
	a := m.Audience()
	cur, ok := t.latest[a]
	if !ok {
		t.order = append(t.order, a)
	}
	if cur == nil || m.CreatedAt >= cur.CreatedAt {
		t.latest[a] = m
	}
	t.end = max(t.end, m.CreatedAt)
}

// before returns the batch's latest turn before m that m may hold
// (memory.MayHold). It is nil when there is none, or when m was said
// before one of the batch's earlier turns: its turn before is then looked
// up in the store.
func (t *thread) before(m *memory.Memory) *memory.Memory {
	if t.end > m.CreatedAt {
		return nil
	}
	var prev *memory.Memory
	for _, a := range t.order {
		if o := t.latest[a]; m.MayHold(o) && (prev == nil || o.CreatedAt > prev.CreatedAt) {
			prev = o
		}
	}
	return prev
}

// turnLine renders a message as context: "speaker: text", bounded.
func turnLine(m *memory.Memory) string {
	t := m.Content.Text
	if utf8.RuneCountInString(t) > MaxContextRunes {
		r := []rune(t)[:MaxContextRunes]
		cut := string(r)
		if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
			cut = cut[:i]
		}
		t = cut + "…"
	}
	t = strings.Join(strings.Fields(t), " ")
	if m.EntityID != "" {
		return m.EntityID + ": " + t
	}
	return t
}
