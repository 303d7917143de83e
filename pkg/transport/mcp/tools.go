package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/transport/contract"
	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool names.
const (
	ToolRemember        = "remember"
	ToolRecall          = "recall"
	ToolGetContext      = "get_context"
	ToolForget          = "forget"
	ToolList            = "list"
	ToolKnowledgeSearch = "knowledge_search"
	ToolPrefetch        = "knowledge_prefetch"
)

// tool is one row of the tool table: its name, the grant it needs (the
// HTTP route's), and how it is added to a caller's server.
type tool struct {
	name  string
	grant memory.Grants
	add   func(srv *sdk.Server, bound *Request)
}

// toolTable is every tool the server has.
func (s *Server) toolTable() []tool {
	f, t := false, true
	tools := []tool{
		define(s, ToolRemember, "Remember", rememberDoc, memory.GrantWrite,
			&sdk.ToolAnnotations{DestructiveHint: &f, OpenWorldHint: &f, IdempotentHint: true},
			enums{"type": memory.Types, "kind": memory.Kinds, "scope": []string{"org", "agent"}, "durability": memory.Durabilities}, s.remember),
		define(s, ToolRecall, "Recall", recallDoc, memory.GrantRead,
			&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f},
			enums{"mode": []service.Mode{service.ModeFull, service.ModeHybrid, service.ModeSemantic, service.ModeKeyword, service.ModeKnowledge},
				"types": memory.Types, "kinds": memory.Kinds}, s.recall),
		define(s, ToolGetContext, "Get prompt context", contextDoc, memory.GrantRead,
			&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}, enums{"providers": service.ProviderNames}, s.getContext),
		define(s, ToolForget, "Forget", forgetDoc, memory.GrantDelete,
			&sdk.ToolAnnotations{DestructiveHint: &t, OpenWorldHint: &f, IdempotentHint: true}, nil, s.forget),
		define(s, ToolList, "List memories", listDoc, memory.GrantRead,
			&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}, enums{"types": memory.Types, "kinds": memory.Kinds}, s.list),
	}
	if s.knowledge != nil {
		tools = append(tools, define(s, ToolKnowledgeSearch, "Knowledge search", knowledgeDoc, memory.GrantRead,
			&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}, enums{"types": memory.Types, "kinds": memory.Kinds}, s.knowledgeSearch),
			define(s, ToolPrefetch, "Knowledge prefetch", prefetchDoc, memory.GrantRead,
				&sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &f}, enums{"types": memory.Types, "kinds": memory.Kinds}, s.knowledgePrefetch))
	}
	if s.workstreams != nil {
		tools = append(tools, s.workstreamTools()...)
	}
	return tools
}

// The tool descriptions, written for a model choosing a tool: when to use
// it, what it returns, its limits.
const (
	rememberDoc  = `Store one memory for later conversations: a fact, preference, decision or event worth keeping, as one self-contained statement ("Priya is vegetarian", not "she is"). Use it when the user states something lasting or asks you to remember; do not store small talk or what is already stored (an identical text is answered as a duplicate with the existing id). By default the memory goes to your agent's scope (with an agent-bound key) or the organization's (with an org-level key); scope "org" shares it with every agent. Returns the memory's id. At most 32 KiB of text.`
	recallDoc    = `Search long-term memory for what is relevant to a query, best first. Use it before answering anything that may depend on earlier conversations, the user's preferences, or facts learned before. mode "full" (the default) fuses keyword, semantic and knowledge search; "keyword" matches exact words and names; "semantic" matches meaning. Narrow with filters (roomId, sessionId, entityId, types, start/end). Returns up to k memories (default 10, at most 100) as numbered lines: id, type, date and text. Only memories your key may see are searched.`
	contextDoc   = `Build a ready-to-use prompt context for a query: the most relevant memories, recent turns and known facts, rendered as text within a token budget (budgetTokens, default 2000). Use it at the start of a task or conversation to ground your answer in memory; use recall instead when you need individual memories and their ids. Returns the context text itself (how the budget was spent per section is in the structured result).`
	forgetDoc    = `Delete memories permanently. Give id to delete one memory (from recall or list), or an erasure filter (entity, sessionId, roomId, start, end, and agentId for an org-level key) to erase every memory that matches all the given fields, such as everything about a person who asked to be forgotten; an erasure is recorded in the audit log. Use it only when the user asks to forget or correct something. Returns how many memories were deleted. Cannot be undone.`
	listDoc      = `List stored memories, newest first, a page at a time, without ranking: use it to browse or audit what is stored (for example every fact of a room, or an agent's memories), and recall to find what is relevant to a question. Filters narrow the list; limit is the page size (default 50, at most 1000) and nextCursor, when present, fetches the next page.`
	prefetchDoc  = `Prefetch what a request being typed already finds: give text, the request so far ("what was the cac"). Returns the completions of its last, partial word (unless text ends with a space), most frequent first, and the memories of the terms it already names and of the first completion, those matching more terms first (limit, default 10, at most 100). Use it to warm a context or suggest terms while the user types; use knowledge_search for the finished question.`
	knowledgeDoc = `Search the structured knowledge extracted from memories (entities, topics, actions such as "Ana moved to Lisbon") and the memories that state it. Use it for questions about named people, places, things or events ("what do we know about Ana?", "who moved last year?"); use recall for general questions. Give text, a question in natural language, or query, a query expression such as {"select": {"entity": {"name": "Ana"}}} or {"select": {"action": {"verbs": ["move"], "subject": "Ana"}}}, not both. Returns the matched entities, topics and actions with their sources, and the memories, best first (limit, default 20, at most 100).`
)

// enums are the allowed values of input properties (of their items, for
// arrays), added to the inferred schema so that a model sees them.
type enums map[string]any

// schemaFor infers T's JSON schema and adds e's enums.
func schemaFor[T any](e enums) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %T: %v", *new(T), err))
	}
	for name, vals := range e {
		p := sc.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("mcp: schema of %T has no property %q", *new(T), name))
		}
		var vs []any
		b, _ := json.Marshal(vals)
		json.Unmarshal(b, &vs)
		if p.Items != nil {
			p = p.Items
		}
		p.Enum = vs
	}
	return sc
}

// define is one tool: its definition with inferred schemas, the grant
// check, and the translation of its failures.
func define[In, Out any](s *Server, name, title, doc string, grant memory.Grants, ann *sdk.ToolAnnotations, e enums,
	run func(ctx context.Context, r Request, in In) (Out, error)) tool {
	def := &sdk.Tool{Name: name, Title: title, Description: doc, Annotations: ann,
		InputSchema: schemaFor[In](e), OutputSchema: schemaFor[Out](nil)}
	return tool{name: name, grant: grant, add: func(srv *sdk.Server, bound *Request) {
		sdk.AddTool(srv, def, func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
			var zero Out
			r := requestOf(ctx, bound)
			if err := r.Caller.Valid(); err != nil {
				return nil, zero, s.toolErr(ctx, r, err)
			}
			if !r.Caller.Grants.Has(grant) {
				return nil, zero, s.toolErr(ctx, r, memory.Errorf(memory.EFORBIDDEN, "%s: this key is not granted %s (it holds: %s)", name, grant, grantList(r.Caller.Grants)))
			}
			out, err := run(ctx, r, in)
			if err != nil {
				return nil, zero, s.toolErr(ctx, r, err)
			}
			if t, ok := any(out).(modelText); ok { // the text a model reads; the SDK adds out as structuredContent
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: t.modelText()}}}, out, nil
			}
			return nil, out, nil
		})
	}}
}

func grantList(g memory.Grants) string {
	if g == 0 {
		return "nothing"
	}
	return g.String()
}

// toolError is a failed tool call: MCP reports it in the tool's result
// (isError, the text "code: message"), where the model reads it and can
// correct its call, rather than as a JSON-RPC error; the middleware adds
// the code to the result's _meta (ErrorMeta).
type toolError struct{ code, msg string }

func (e *toolError) Error() string { return e.code + ": " + e.msg }

// toolErr translates err as the HTTP API does: the code and message of a
// memory error; an internal error is logged and shown only by its request
// id.
func (s *Server) toolErr(ctx context.Context, r Request, err error) error {
	code, msg := memory.ErrorCode(err), memory.ErrorMessage(err)
	if code == memory.EINTERNAL || code == memory.EUNAVAILABLE {
		s.log.ErrorContext(ctx, "mcp tool failed", "request_id", r.RequestID, "org", r.Caller.OrgID, "err", err.Error())
		if code == memory.EINTERNAL {
			msg = "internal error; request id " + r.RequestID
		}
	}
	return &toolError{code: code, msg: msg}
}

// Filters narrow recall, list and knowledge_search, as the filters of the
// HTTP API do. The organization always comes from the key.
type Filters struct {
	Types      []string `json:"types,omitempty" jsonschema:"only memories of these types"`
	Kinds      []string `json:"kinds,omitempty" jsonschema:"only facts of these kinds"`
	RoomID     string   `json:"roomId,omitempty" jsonschema:"the room (a conversation or channel) served: only memories of this room, and this room's world, user and shared memories are visible"`
	WorldID    string   `json:"worldId,omitempty" jsonschema:"the world served (a group of rooms): only memories of its rooms"`
	UserID     string   `json:"userId,omitempty" jsonschema:"the end user served (an entity id): the read sees this user's memories and no other user's"`
	SessionID  string   `json:"sessionId,omitempty" jsonschema:"only memories of this session"`
	EntityID   string   `json:"entityId,omitempty" jsonschema:"only memories about or said by this entity (a user or speaker id)"`
	AgentID    string   `json:"agentId,omitempty" jsonschema:"only this agent's memories, or _org for the organization's shared ones; an agent-bound key may name only its own agent"`
	DocumentID string   `json:"documentId,omitempty" jsonschema:"only the fragments of this document"`
	Start      string   `json:"start,omitempty" jsonschema:"only memories created at or after this time: RFC 3339 or milliseconds since the epoch"`
	End        string   `json:"end,omitempty" jsonschema:"only memories created before this time: RFC 3339 or milliseconds since the epoch"`
	// IncludeArchived adds archived memories.
	IncludeArchived bool `json:"includeArchived,omitempty" jsonschema:"include memories archived by consolidation"`
}

func (f Filters) filter() (memory.Filter, error) {
	start, err := parseTime("start", f.Start)
	if err != nil {
		return memory.Filter{}, err
	}
	end, err := parseTime("end", f.End)
	if err != nil {
		return memory.Filter{}, err
	}
	out := memory.Filter{RoomID: f.RoomID, WorldID: f.WorldID, EntityID: f.EntityID, SessionID: f.SessionID, AgentID: f.AgentID,
		DocumentID: f.DocumentID, Start: start, End: end, IncludeArchived: f.IncludeArchived}
	for _, t := range f.Types {
		out.Types = append(out.Types, memory.Type(t))
	}
	for _, k := range f.Kinds {
		out.Kinds = append(out.Kinds, memory.Kind(k))
	}
	return out, nil
}

// act makes c act for the room, world and end user f names
// (service.Act): every reading tool calls it before reading.
func (s *Server) act(ctx context.Context, c memory.Caller, f Filters) (memory.Caller, error) {
	return s.svc.Act(ctx, c, memory.Acting{UserID: f.UserID, RoomID: f.RoomID, WorldID: f.WorldID})
}

// parseTime reads a time a tool argument gives, spaces trimmed
// (contract.ParseTime).
func parseTime(field, s string) (int64, error) {
	return contract.ParseTime(field, strings.TrimSpace(s))
}

// Memory is a memory as the tools show it.
type Memory struct {
	ID         string         `json:"id" jsonschema:"the memory's id (for forget)"`
	Text       string         `json:"text" jsonschema:"what the memory says"`
	Type       string         `json:"type" jsonschema:"message, fact, fragment, document, description or custom"`
	Kind       string         `json:"kind,omitempty" jsonschema:"a fact's kind (preference, fact, ...)"`
	AgentID    string         `json:"agentId,omitempty" jsonschema:"the agent the memory belongs to; absent for the organization's shared memories"`
	EntityID   string         `json:"entityId,omitempty" jsonschema:"the entity it is about or who said it"`
	RoomID     string         `json:"roomId,omitempty"`
	SessionID  string         `json:"sessionId,omitempty"`
	DocumentID string         `json:"documentId,omitempty"`
	ExternalID string         `json:"externalId,omitempty"`
	Metadata   map[string]any `json:"metadata,omitempty"`
	Importance float64        `json:"importance"`
	Time       string         `json:"time" jsonschema:"when it happened or was said (RFC 3339, UTC)"`
	CreatedAt  int64          `json:"createdAt" jsonschema:"the same time in milliseconds since the epoch"`
}

func memoryOut(m *memory.Memory) Memory {
	out := Memory{ID: m.ID, Text: m.Content.Text, Type: string(m.Type), Kind: string(m.Kind), AgentID: m.AgentID,
		EntityID: m.EntityID, RoomID: m.RoomID, SessionID: m.SessionID, DocumentID: m.DocumentID, ExternalID: m.ExternalID,
		Importance: m.Importance, CreatedAt: m.CreatedAt, Time: time.UnixMilli(m.CreatedAt).UTC().Format(time.RFC3339)}
	if len(m.Metadata) > 0 {
		json.Unmarshal(m.Metadata, &out.Metadata) // an object, or left out
	}
	return out
}

// RememberInput is the input of remember.
type RememberInput struct {
	Content    string         `json:"content" jsonschema:"the text to remember: one self-contained statement"`
	Type       string         `json:"type,omitempty" jsonschema:"what it is: fact (default for statements worth keeping), message (a conversation turn), description (of an entity) or custom"`
	Kind       string         `json:"kind,omitempty" jsonschema:"for a fact: preference, fact, interaction, summary, user_request, entity or interest"`
	Scope      string         `json:"scope,omitempty" jsonschema:"who may read it: shared (or org: every agent and user of the organization), private (or agent: one agent; the default for an agent-bound key), room (the room's readers; the default for a message with roomId), world, or user (one end user, userId)"`
	UserID     string         `json:"userId,omitempty" jsonschema:"the end user it belongs to (an entity id); with scope user only that user's reads see it"`
	WorldID    string         `json:"worldId,omitempty" jsonschema:"the world (a group of rooms) it belongs to"`
	AgentID    string         `json:"agentId,omitempty" jsonschema:"the agent it belongs to (an org-level key only; an agent-bound key writes for its own agent)"`
	EntityID   string         `json:"entityId,omitempty" jsonschema:"the entity it is about or who said it (a user or speaker id)"`
	RoomID     string         `json:"roomId,omitempty" jsonschema:"the room (conversation or channel) it belongs to"`
	SessionID  string         `json:"sessionId,omitempty" jsonschema:"the session it belongs to"`
	ExternalID string         `json:"externalId,omitempty" jsonschema:"your own key for it, unique per scope: remembering the same key again is a duplicate"`
	Metadata   map[string]any `json:"metadata,omitempty" jsonschema:"free-form attributes (a JSON object)"`
	Importance *float64       `json:"importance,omitempty" jsonschema:"0 to 1 (default 0.5): how much it matters"`
	Durability string         `json:"durability,omitempty" jsonschema:"core never decays, standard (default), ephemeral decays fast"`
}

// RememberOutput is the result of remember.
type RememberOutput struct {
	ID        string `json:"id" jsonschema:"the memory's id"`
	Duplicate bool   `json:"duplicate" jsonschema:"true when an identical memory was already stored: id is that memory's"`
}

func (s *Server) remember(ctx context.Context, r Request, in RememberInput) (RememberOutput, error) {
	typ := memory.Type(in.Type)
	if typ == "" {
		typ = memory.TypeFact
	}
	nm := service.NewMemory{Scope: in.Scope, AgentID: in.AgentID, Type: typ, Kind: memory.Kind(in.Kind), ExternalID: in.ExternalID,
		Content: memory.Content{Text: in.Content}, EntityID: in.EntityID, RoomID: in.RoomID, SessionID: in.SessionID, UserID: in.UserID, WorldID: in.WorldID,
		Importance: in.Importance, Durability: memory.Durability(in.Durability)}
	if in.Metadata != nil {
		b, err := json.Marshal(in.Metadata)
		if err != nil {
			return RememberOutput{}, memory.Errorf(memory.EINVALID, "metadata: %v", err)
		}
		nm.Metadata = b
	}
	if s.quotas != nil {
		u := memory.OrgUsage{Memories: 1, Bytes: int64(len(in.Content))}
		if typ == memory.TypeDocument {
			u.Documents = 1
		}
		release, err := s.quotas.Reserve(ctx, r.Caller.OrgID, u)
		if err != nil {
			return RememberOutput{}, err
		}
		defer release()
	}
	res, err := s.svc.Create(ctx, r.Caller, []service.NewMemory{nm})
	if err != nil {
		return RememberOutput{}, err
	}
	return RememberOutput{ID: res[0].ID, Duplicate: res[0].Duplicate}, nil
}

// RecallInput is the input of recall.
type RecallInput struct {
	Query     string  `json:"query" jsonschema:"what to look for, in natural language or keywords"`
	Mode      string  `json:"mode,omitempty" jsonschema:"full (default: keyword, semantic and knowledge fused), hybrid (keyword and semantic), semantic, keyword or knowledge"`
	K         int     `json:"k,omitempty" jsonschema:"how many memories to return (default 10, at most 100)"`
	Threshold float64 `json:"threshold,omitempty" jsonschema:"0 to 1: drop weak matches (default 0: keep all)"`
	Filters
}

// RecallResult is one memory found, with its score.
type RecallResult struct {
	Memory
	Score float64 `json:"score" jsonschema:"relevance; higher is better, comparable within one answer only"`
}

// RecallOutput is the result of recall.
type RecallOutput struct {
	Mode    string         `json:"mode" jsonschema:"the mode that ran"`
	Results []RecallResult `json:"results" jsonschema:"the memories found, best first"`
}

func (s *Server) recall(ctx context.Context, r Request, in RecallInput) (RecallOutput, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return RecallOutput{}, err
	}
	if r.Caller, err = s.act(ctx, r.Caller, in.Filters); err != nil {
		return RecallOutput{}, err
	}
	mode := service.Mode(in.Mode)
	if mode == "" {
		mode = service.ModeFull
	}
	res, err := s.svc.SearchRanked(ctx, r.Caller, service.SearchRequest{Query: in.Query, Mode: mode, K: in.K, Threshold: in.Threshold, Filter: f})
	if err != nil {
		return RecallOutput{}, err
	}
	out := RecallOutput{Mode: string(mode), Results: []RecallResult{}}
	for _, x := range res.Results {
		out.Results = append(out.Results, RecallResult{Memory: memoryOut(x.Memory), Score: x.Score})
	}
	return out, nil
}

// ContextInput is the input of get_context.
type ContextInput struct {
	Query        string `json:"query" jsonschema:"the task or question the context is for"`
	RoomID       string `json:"roomId,omitempty" jsonschema:"the room (conversation) served: its recent turns lead, and every section sees only what this room may see"`
	WorldID      string `json:"worldId,omitempty" jsonschema:"the world served (default: the room's)"`
	UserID       string `json:"userId,omitempty" jsonschema:"the end user served (an entity id): every section sees this user's memories and no other user's"`
	BudgetTokens int    `json:"budgetTokens,omitempty" jsonschema:"the most tokens the context may take (default 2000)"`
	// The composition: see service.ContextRequest.
	WorkstreamID  string   `json:"workstreamId,omitempty" jsonschema:"a workstream whose memory block the context carries"`
	Providers     []string `json:"providers,omitempty" jsonschema:"the sections and their order: core, block, recent, knowledge, facts, documents, relations (default: core, block, recent, knowledge, facts)"`
	ReserveTokens int      `json:"reserveTokens,omitempty" jsonschema:"tokens of the budget left to your own system prompt and current message"`
	MessageID     string   `json:"messageId,omitempty" jsonschema:"the message the context is for: the same request again is answered from a cache until a write"`
}

// ContextOutput is the result of get_context.
type ContextOutput struct {
	Context      string           `json:"context" jsonschema:"the context, ready to put in a prompt"`
	BudgetTokens int              `json:"budgetTokens"`
	UsedTokens   int              `json:"usedTokens"`
	Sections     []ContextSection `json:"sections" jsonschema:"how the budget was spent"`
	Cached       bool             `json:"cached,omitempty" jsonschema:"answered from the cache (same messageId, nothing written since)"`
}

// ContextSection is one section of a context.
type ContextSection struct {
	Name      string   `json:"name"`
	Provider  string   `json:"provider" jsonschema:"the provider that filled it"`
	Tokens    int      `json:"tokens"`
	MemoryIDs []string `json:"memoryIds" jsonschema:"the memories placed in the section"`
}

func (s *Server) getContext(ctx context.Context, r Request, in ContextInput) (ContextOutput, error) {
	req := service.ContextRequest{Query: in.Query, RoomID: in.RoomID, UserID: in.UserID, WorldID: in.WorldID, BudgetTokens: in.BudgetTokens,
		WorkstreamID: in.WorkstreamID, Providers: in.Providers, ReserveTokens: in.ReserveTokens, MessageID: in.MessageID}
	c, err := s.svc.Act(ctx, r.Caller, req.Acting())
	if err != nil {
		return ContextOutput{}, err
	}
	res, err := s.svc.BuildContext(ctx, c, req)
	if err != nil {
		return ContextOutput{}, err
	}
	out := ContextOutput{Context: res.Context, BudgetTokens: res.BudgetTokens, UsedTokens: res.UsedTokens, Sections: []ContextSection{}, Cached: res.Cached}
	for _, sec := range res.Sections {
		cs := ContextSection{Name: sec.Name, Provider: sec.Provider, Tokens: sec.Tokens, MemoryIDs: []string{}}
		for _, it := range sec.Items {
			if it.ID != "" {
				cs.MemoryIDs = append(cs.MemoryIDs, it.ID)
			}
		}
		out.Sections = append(out.Sections, cs)
	}
	return out, nil
}

// ForgetInput is the input of forget: id, or the erasure filter.
type ForgetInput struct {
	ID        string `json:"id,omitempty" jsonschema:"the one memory to delete"`
	Entity    string `json:"entity,omitempty" jsonschema:"erase the memories about this entity (by id or name, including what the knowledge extracted names it)"`
	SessionID string `json:"sessionId,omitempty" jsonschema:"erase the memories of this session"`
	RoomID    string `json:"roomId,omitempty" jsonschema:"erase the memories of this room"`
	Start     string `json:"start,omitempty" jsonschema:"erase the memories created at or after this time (RFC 3339 or milliseconds)"`
	End       string `json:"end,omitempty" jsonschema:"erase the memories created before this time (RFC 3339 or milliseconds)"`
	AgentID   string `json:"agentId,omitempty" jsonschema:"with an org-level key: erase within this agent's scope only, or _org for the shared memories"`
}

// ForgetOutput is the result of forget.
type ForgetOutput struct {
	Deleted   int    `json:"deleted" jsonschema:"memories deleted (with an erasure: dependent facts included)"`
	Matched   int    `json:"matched,omitempty" jsonschema:"memories the erasure filter selected"`
	Facts     int    `json:"facts,omitempty" jsonschema:"facts deleted because their only sources were"`
	Relations int    `json:"relations,omitempty" jsonschema:"relations deleted with them"`
	AuditID   string `json:"auditId,omitempty" jsonschema:"the erasure's audit log entry"`
}

func (s *Server) forget(ctx context.Context, r Request, in ForgetInput) (ForgetOutput, error) {
	filtered := in.Entity != "" || in.SessionID != "" || in.RoomID != "" || in.Start != "" || in.End != "" || in.AgentID != ""
	if in.ID != "" {
		if filtered {
			return ForgetOutput{}, memory.Errorf(memory.EINVALID, "id: give either id or the erasure filter (entity, sessionId, roomId, start, end, agentId), not both")
		}
		if _, err := s.svc.Delete(ctx, r.Caller, in.ID, service.DeleteOptions{}); err != nil { // the service's rule, as DELETE /v1/memories/{id}
			return ForgetOutput{}, err
		}
		return ForgetOutput{Deleted: 1}, nil
	}
	start, err := parseTime("start", in.Start)
	if err != nil {
		return ForgetOutput{}, err
	}
	end, err := parseTime("end", in.End)
	if err != nil {
		return ForgetOutput{}, err
	}
	if !filtered {
		return ForgetOutput{}, memory.Errorf(memory.EINVALID, "id: required, or one of entity, sessionId, roomId, start, end")
	}
	e, err := s.svc.Forget(ctx, r.Caller, service.Actor{KeyID: r.KeyID, RequestID: r.RequestID}, service.ForgetFilter{
		Entity: in.Entity, SessionID: in.SessionID, RoomID: in.RoomID, Start: start, End: end, AgentID: in.AgentID})
	if err != nil {
		return ForgetOutput{}, err
	}
	return ForgetOutput{Deleted: e.Report.Memories, Matched: e.Report.Matched, Facts: e.Report.Facts,
		Relations: e.Report.Relations, AuditID: e.ID}, nil
}

// ListInput is the input of list.
type ListInput struct {
	Limit  int    `json:"limit,omitempty" jsonschema:"the page size (default 50, at most 1000)"`
	Cursor string `json:"cursor,omitempty" jsonschema:"nextCursor of the previous page"`
	Unique bool   `json:"unique,omitempty" jsonschema:"true: one memory per distinct content, the newest; the pages of one cursor chain never repeat a content"`
	Filters
}

// ListOutput is the result of list.
type ListOutput struct {
	Memories   []Memory `json:"memories" jsonschema:"the page, newest first"`
	NextCursor string   `json:"nextCursor,omitempty" jsonschema:"the cursor of the next page; absent on the last page"`
}

func (s *Server) list(ctx context.Context, r Request, in ListInput) (ListOutput, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return ListOutput{}, err
	}
	if r.Caller, err = s.act(ctx, r.Caller, in.Filters); err != nil {
		return ListOutput{}, err
	}
	if in.Limit < 0 || in.Limit > memory.MaxListLimit {
		return ListOutput{}, memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", memory.MaxListLimit)
	}
	list := s.svc.List
	if in.Unique {
		list = s.svc.ListUnique
	}
	page, err := list(ctx, r.Caller, f, in.Limit, in.Cursor)
	if err != nil {
		return ListOutput{}, err
	}
	out := ListOutput{Memories: []Memory{}, NextCursor: page.Next.Encode()}
	for _, m := range page.Memories {
		out.Memories = append(out.Memories, memoryOut(m))
	}
	return out, nil
}

// KnowledgeSearchInput is the input of knowledge_search.
type KnowledgeSearchInput struct {
	Text  string         `json:"text,omitempty" jsonschema:"a question in natural language, translated into a query expression"`
	Query map[string]any `json:"query,omitempty" jsonschema:"a query expression: select (a tree of and/or/not over entity, action, topic, term and property leaves) or terms, and optionally time, scope, relatedTerms, limit"`
	Limit int            `json:"limit,omitempty" jsonschema:"the most memories, and entities, topics and actions, returned (default 20, at most 100)"`
	Filters
}

// KnowledgeOutput is the result of knowledge_search.
type KnowledgeOutput struct {
	Expression any               `json:"expression" jsonschema:"the expression that ran (the translation of text)"`
	Entities   []KnowledgeItem   `json:"entities"`
	Topics     []KnowledgeItem   `json:"topics"`
	Actions    []KnowledgeItem   `json:"actions"`
	Memories   []KnowledgeMemory `json:"memories" jsonschema:"the memories matched, best first"`
}

// KnowledgeItem is a matched entity, topic or action.
type KnowledgeItem struct {
	Name      string   `json:"name" jsonschema:"the entity's name, the topic, or the action as a sentence"`
	Types     []string `json:"types,omitempty" jsonschema:"an entity's types"`
	Score     float64  `json:"score"`
	MemoryIDs []string `json:"memoryIds" jsonschema:"the memories it was found in (the best few)"`
}

// KnowledgeMemory is a matched memory.
type KnowledgeMemory struct {
	Memory
	Score float64  `json:"score"`
	Terms []string `json:"terms" jsonschema:"the terms that matched it"`
}

func (s *Server) knowledgeSearch(ctx context.Context, r Request, in KnowledgeSearchInput) (KnowledgeOutput, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return KnowledgeOutput{}, err
	}
	if r.Caller, err = s.act(ctx, r.Caller, in.Filters); err != nil {
		return KnowledgeOutput{}, err
	}
	var q json.RawMessage
	if in.Query != nil {
		if q, err = json.Marshal(in.Query); err != nil {
			return KnowledgeOutput{}, memory.Errorf(memory.EINVALID, "query: %v", err)
		}
	}
	res, err := s.knowledge.Search(ctx, r.Caller, knowledge.SearchRequest{Query: q, Text: in.Text, Limit: in.Limit, Filter: f})
	if err != nil {
		return KnowledgeOutput{}, err
	}
	out := KnowledgeOutput{Entities: []KnowledgeItem{}, Topics: []KnowledgeItem{}, Actions: []KnowledgeItem{}, Memories: []KnowledgeMemory{}}
	if res.Expression != nil {
		b, _ := json.Marshal(res.Expression)
		json.Unmarshal(b, &out.Expression)
	}
	for _, e := range res.Entities {
		out.Entities = append(out.Entities, KnowledgeItem{Name: e.Name, Types: e.Types, Score: e.Score, MemoryIDs: sourceIDs(e.Item)})
	}
	for _, t := range res.Topics {
		out.Topics = append(out.Topics, KnowledgeItem{Name: t.Topic, Score: t.Score, MemoryIDs: sourceIDs(t.Item)})
	}
	for _, a := range res.Actions {
		out.Actions = append(out.Actions, KnowledgeItem{Name: actionText(a.Action), Score: a.Score, MemoryIDs: sourceIDs(a.Item)})
	}
	for _, m := range res.Memories {
		terms := m.Terms
		if terms == nil {
			terms = []string{}
		}
		out.Memories = append(out.Memories, KnowledgeMemory{Memory: memoryOut(m.Memory), Score: m.Score, Terms: terms})
	}
	return out, nil
}

func sourceIDs(it knowledge.Item) []string {
	ids := []string{}
	for _, src := range it.Sources {
		ids = append(ids, src.MemoryID)
	}
	return ids
}

// actionText renders an action as a short sentence: "Ana (not) move
// Lisbon", the verbs joined by "/".
func actionText(a memory.Action) string {
	parts := []string{}
	if a.Subject != "" {
		parts = append(parts, a.Subject)
	}
	if a.Negated {
		parts = append(parts, "not")
	}
	parts = append(parts, strings.Join(a.Verbs, "/"))
	for _, p := range []string{a.Object, a.IndirectObject} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if a.Tense != "" {
		parts = append(parts, "("+a.Tense+")")
	}
	return strings.Join(parts, " ")
}

// PrefetchInput is the input of knowledge_prefetch.
type PrefetchInput struct {
	Text      string `json:"text" jsonschema:"the request as typed so far; its last word, unless followed by a space, is completed"`
	Limit     int    `json:"limit,omitempty" jsonschema:"the most memories (default 10, at most 100)"`
	TermLimit int    `json:"termLimit,omitempty" jsonschema:"the most completions (default 10, at most 100)"`
	Filters
}

// PrefetchOutput is the result of knowledge_prefetch.
type PrefetchOutput struct {
	Completions []string          `json:"completions" jsonschema:"the completions of the partial word, most frequent first"`
	Terms       []string          `json:"terms" jsonschema:"the terms whose memories were fetched"`
	Memories    []KnowledgeMemory `json:"memories" jsonschema:"the memories of the terms, those matching more terms first"`
}

func (s *Server) knowledgePrefetch(ctx context.Context, r Request, in PrefetchInput) (PrefetchOutput, error) {
	f, err := in.Filters.filter()
	if err != nil {
		return PrefetchOutput{}, err
	}
	if r.Caller, err = s.act(ctx, r.Caller, in.Filters); err != nil {
		return PrefetchOutput{}, err
	}
	res, err := s.knowledge.Prefetch(ctx, r.Caller, knowledge.PrefetchRequest{Text: in.Text, Limit: in.Limit, TermLimit: in.TermLimit, Filter: f})
	if err != nil {
		return PrefetchOutput{}, err
	}
	out := PrefetchOutput{Completions: []string{}, Terms: res.Terms, Memories: []KnowledgeMemory{}}
	for _, h := range res.Completions {
		out.Completions = append(out.Completions, h.Term)
	}
	for _, m := range res.Memories {
		out.Memories = append(out.Memories, KnowledgeMemory{Memory: memoryOut(m.Memory), Score: m.Score, Terms: m.Terms})
	}
	return out, nil
}
