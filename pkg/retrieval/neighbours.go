package retrieval

import (
	"context"
	"slices"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/agentmem/agentmem/pkg/memory"
)

// StageNeighbours is the neighbours stage's name in a result's scores.
const StageNeighbours = "neighbours"

// Defaults of the neighbours stage.
const (
	// DefaultNeighbourAnchors is how many of the best results bring their
	// neighbours in.
	DefaultNeighbourAnchors = 3
	// DefaultNeighbourTurns is how many turns on each side of an anchor
	// are its neighbours: two, so that in a dialogue of two speakers the
	// anchor's own previous and next turns come with the other speaker's.
	DefaultNeighbourTurns = 2
	// DefaultNeighbourShare is the share of its anchor's score a neighbour
	// takes: below the anchor, and under it the memories the lists
	// themselves rank nearly as high. See docs/benchmarks.md for the
	// shares measured.
	DefaultNeighbourShare = 0.75
)

// Neighbours is the neighbours stage: a conversation's turns are read in
// context, so the turns just before and after the best results (the
// question a turn answers, the reply that completes it: "Thanks! I'm so
// excited!" after "How do you feel about the opening?") are candidates
// too, scored at a share of their anchor's score when that beats their
// own. A turn's neighbours are the messages of its session (its room when
// it has none) next to it in time that the query's filter lets through.
//
// It runs between load and rerank, on fused scores only (searches of two
// lists or more), and reads the store twice per anchor (the turns before,
// the turns after), through the session index, all the reads at once.
type Neighbours struct {
	// Anchors, Turns and Share default to DefaultNeighbourAnchors,
	// DefaultNeighbourTurns and DefaultNeighbourShare.
	Anchors, Turns int
	Share          float64
	// Skip, if set, tells the questions the stage leaves alone: wired
	// with AsksMany, since the answer to a question that asks for many
	// answers over time is said once in each of several sessions, and the
	// turns around the best one would crowd the others out (measured in
	// docs/benchmarks.md, issue 43).
	Skip func(query string) bool
}

func (n Neighbours) skips(query string) bool { return n.Skip != nil && n.Skip(query) }

func (n Neighbours) anchors() int {
	if n.Anchors > 0 {
		return n.Anchors
	}
	return DefaultNeighbourAnchors
}

func (n Neighbours) turns() int {
	if n.Turns > 0 {
		return n.Turns
	}
	return DefaultNeighbourTurns
}

func (n Neighbours) share() float64 {
	if n.Share > 0 {
		return n.Share
	}
	return DefaultNeighbourShare
}

// apply scores the neighbours of the best results and returns the results
// re-sorted, neighbours that were not results appended. The anchors'
// reads run concurrently (on DynamoDB each is a round trip); their
// neighbours are then scored in the anchors' order, so the outcome does
// not depend on which read ends first.
func (n Neighbours) apply(ctx context.Context, store memory.Store, c memory.Caller, f memory.Filter, results []Result) ([]Result, error) {
	at := make(map[string]int, len(results))
	for i, r := range results {
		at[r.Memory.ID] = i
	}
	anchors := min(n.anchors(), len(results))
	near, err := n.read(ctx, store, f, results[:anchors])
	if err != nil {
		return nil, err
	}
	share := n.share()
	for a := range anchors {
		score := share * results[a].Score
		for _, o := range near[a] {
			if !c.CanSeeMemory(o) || !f.Match(o.Attrs()) {
				continue
			}
			i, ok := at[o.ID]
			if !ok {
				results = append(results, Result{Memory: o, Lists: map[string]*memory.ModeScore{}})
				i = len(results) - 1
				at[o.ID] = i
			}
			if results[i].Score >= score {
				continue
			}
			lists := make(map[string]*memory.ModeScore, len(results[i].Lists)+1)
			for k, v := range results[i].Lists {
				lists[k] = v
			}
			lists[StageNeighbours] = &memory.ModeScore{Score: score, Rank: a + 1}
			results[i].Lists, results[i].Score = lists, score
		}
	}
	sort.SliceStable(results, func(i, j int) bool { return results[i].Score > results[j].Score })
	return results, nil
}

// read returns each anchor's neighbours, the turns before it then the
// turns after it, all read at once: two reads per anchor that is a message
// with a session or a room, none for another.
func (n Neighbours) read(ctx context.Context, store memory.Store, f memory.Filter, anchors []Result) ([][]*memory.Memory, error) {
	pages := make([][2][]*memory.Memory, len(anchors))
	g, gctx := errgroup.WithContext(ctx)
	for a, anchor := range anchors {
		m := anchor.Memory
		if m.Type != memory.TypeMessage || (m.SessionID == "" && m.RoomID == "") {
			continue
		}
		around := f // the anchor's session, or its room when it has none
		if m.SessionID != "" {
			around.SessionID = m.SessionID
		} else {
			around.RoomID = m.RoomID
		}
		here := &memory.Cursor{CreatedAt: m.CreatedAt, ID: m.ID}
		for side, asc := range []bool{false, true} {
			g.Go(func() error {
				page, err := store.List(gctx, memory.ListQuery{Filter: around, Limit: n.turns(), Cursor: here, Ascending: asc})
				if err != nil {
					return err
				}
				pages[a][side] = page.Memories
				return nil
			})
		}
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	near := make([][]*memory.Memory, len(anchors))
	for a, p := range pages {
		near[a] = slices.Concat(p[0], p[1])
	}
	return near, nil
}
