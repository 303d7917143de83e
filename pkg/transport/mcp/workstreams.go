package mcp

import (
	"context"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/workstream"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The memory block tools' names.
const (
	ToolWorkstreamGet    = "workstream_get"
	ToolWorkstreamAppend = "workstream_append"
)

// WithWorkstreams adds the workstream_get and workstream_append tools over
// ws (nil: no tools, the store keeps no records).
func WithWorkstreams(ws *workstream.Service) Option { return func(s *Server) { s.workstreams = ws } }

const (
	workstreamGetDoc    = `Read a workstream's memory block: the short role-labelled notes ("chief: ship on Friday") kept for one piece of work, oldest first, as compacted so far. Use it to pick up where the work stands before acting on it. Give the workstream id; roomId, worldId and userId say whom you act for, as in recall: a block you may not see answers not_found. Returns the entries (role, text, importance, summary and pinned marks) and how many compactions the block went through.`
	workstreamAppendDoc = `Append one note to a workstream's memory block: a role (who says it: "chief", "cto", your own role) and a short self-contained text (at most 2000 bytes), with an optional importance 0..1 (default 0.5). Use it to record a decision, a plan or a status that the next turns of this work need. A block past its limit is compacted (duplicates merged, the least important old notes folded into a summary; a note saying "remember" is never folded). Returns the block as written.`
)

// workstreamTools are the memory block tools.
func (s *Server) workstreamTools() []tool {
	f := false
	return []tool{
		define(s, ToolWorkstreamGet, "Read a memory block", workstreamGetDoc, memory.GrantRead,
			&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}, nil, s.workstreamGet),
		define(s, ToolWorkstreamAppend, "Append to a memory block", workstreamAppendDoc, memory.GrantWrite,
			&sdk.ToolAnnotations{DestructiveHint: &f, OpenWorldHint: &f}, nil, s.workstreamAppend),
	}
}

// Acting says whom a tool call serves, as the HTTP API's roomId, worldId
// and userId do.
type Acting struct {
	RoomID  string `json:"roomId,omitempty" jsonschema:"the room (conversation) served: only what this room may see is visible"`
	WorldID string `json:"worldId,omitempty" jsonschema:"the world served (default: the room's)"`
	UserID  string `json:"userId,omitempty" jsonschema:"the end user served (an entity id): this user's blocks and no other user's"`
}

// WorkstreamGetInput is the input of workstream_get.
type WorkstreamGetInput struct {
	ID string `json:"id" jsonschema:"the workstream's id"`
	Acting
}

// WorkstreamAppendInput is the input of workstream_append.
type WorkstreamAppendInput struct {
	ID         string   `json:"id" jsonschema:"the workstream's id"`
	Role       string   `json:"role" jsonschema:"who the note is from or about: chief, cto, your own role"`
	Text       string   `json:"text" jsonschema:"the note, one short self-contained statement"`
	Importance *float64 `json:"importance,omitempty" jsonschema:"0..1 (default 0.5): what a compaction folds last"`
	Acting
}

// WorkstreamOutput is a memory block as the tools return it.
type WorkstreamOutput struct {
	ID          string            `json:"id"`
	Name        string            `json:"name,omitempty"`
	Limit       int               `json:"limit" jsonschema:"entries past which the block is compacted"`
	Version     int64             `json:"version"`
	Entries     []WorkstreamEntry `json:"entries" jsonschema:"the block, oldest first"`
	Compactions int               `json:"compactions" jsonschema:"compactions the block went through (the HTTP API shows what each folded)"`
}

// WorkstreamEntry is one note of a block.
type WorkstreamEntry struct {
	Seq        int64   `json:"seq"`
	Role       string  `json:"role"`
	Text       string  `json:"text"`
	Importance float64 `json:"importance"`
	At         string  `json:"at" jsonschema:"when it was written (RFC 3339)"`
	Summary    bool    `json:"summary,omitempty" jsonschema:"written by a compaction, standing for the notes it folded"`
	Pinned     bool    `json:"pinned,omitempty" jsonschema:"says remember: never folded"`
}

// acting returns r's caller acting for a.
func (s *Server) acting(ctx context.Context, r Request, a Acting) (memory.Caller, error) {
	return s.svc.Act(ctx, r.Caller, memory.Acting{RoomID: a.RoomID, WorldID: a.WorldID, UserID: a.UserID})
}

func (s *Server) workstreamGet(ctx context.Context, r Request, in WorkstreamGetInput) (WorkstreamOutput, error) {
	c, err := s.acting(ctx, r, in.Acting)
	if err != nil {
		return WorkstreamOutput{}, err
	}
	b, err := s.workstreams.Get(ctx, c, in.ID)
	if err != nil {
		return WorkstreamOutput{}, err
	}
	return blockOutput(b), nil
}

func (s *Server) workstreamAppend(ctx context.Context, r Request, in WorkstreamAppendInput) (WorkstreamOutput, error) {
	c, err := s.acting(ctx, r, in.Acting)
	if err != nil {
		return WorkstreamOutput{}, err
	}
	b, err := s.workstreams.Append(ctx, c, in.ID, workstream.NewEntry{Role: in.Role, Text: in.Text, Importance: in.Importance})
	if err != nil {
		return WorkstreamOutput{}, err
	}
	return blockOutput(b), nil
}

func blockOutput(b *workstream.Block) WorkstreamOutput {
	out := WorkstreamOutput{ID: b.ID, Name: b.Name, Limit: b.Limit, Version: b.Version, Entries: []WorkstreamEntry{}, Compactions: len(b.CompactedAt)}
	for _, e := range b.Entries {
		out.Entries = append(out.Entries, WorkstreamEntry{Seq: e.Seq, Role: e.Role, Text: e.Text, Importance: e.Importance,
			At: time.UnixMilli(e.At).UTC().Format(time.RFC3339), Summary: e.Summary, Pinned: e.Pinned})
	}
	return out
}
