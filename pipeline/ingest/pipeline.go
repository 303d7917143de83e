package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/agentmem/agentmem/service"
	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/agentmem/agentmem/memory"
)

// Document states.
const (
	StatePending = "pending"
	StateIndexed = "indexed"
	StateFailed  = "failed"
)

// RecordKind is the kind of the document status records.
const RecordKind = "DOC"

// Status is the ingestion state of one document.
type Status struct {
	ID         string `json:"id"`
	OrgID      string `json:"orgId"`
	AgentID    string `json:"agentId,omitempty"`
	Key        string `json:"key"`
	Name       string `json:"name"`
	State      string `json:"state"`
	Reason     string `json:"reason,omitempty"`
	Bytes      int    `json:"bytes"`
	ETag       string `json:"etag,omitempty"`
	Fragments  int    `json:"fragments"`
	StartedAt  int64  `json:"startedAt"`
	FinishedAt int64  `json:"finishedAt,omitempty"`
	LoadMs     int64  `json:"loadMs"`
	IndexMs    int64  `json:"indexMs"`
}

// Pipeline loads, splits, embeds and indexes documents through the service.
type Pipeline struct {
	Service  *service.Service
	Records  memory.RecordStore
	Splitter Splitter
	// MaxBytes bounds a document (default 25 MiB); it overrides
	// Limits.MaxBytes when set.
	MaxBytes int
	// Limits bound the loading and splitting of each document (zero
	// fields: DefaultLimits).
	Limits Limits
	Now    func() time.Time
	Log    *slog.Logger
}

// DocumentID derives a document's id from its org and key, so that every
// delivery of the same object names the same document.
func DocumentID(org, key string) string {
	sum := sha256.Sum256([]byte(org + "\x00" + key))
	return "doc_" + hex.EncodeToString(sum[:12])
}

// ParseKey splits an object key of the form {orgId}/{agentId or _org}/{path}
// (the agent segment memory.OrgScope for org-scope documents) into the
// caller the document belongs to; the ids must pass memory.ValidName.
// Anything else is EINVALID: the owner of a document is never guessed.
func ParseKey(key string) (memory.Caller, error) {
	parts := strings.SplitN(key, "/", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || strings.Trim(parts[2], "/") == "" {
		return memory.Caller{}, memory.Errorf(memory.EINVALID, "key %q: not {orgId}/{agentId or %s}/{path}", key, memory.OrgScope)
	}
	for _, p := range parts[:2] {
		if !memory.ValidName(p) {
			return memory.Caller{}, memory.Errorf(memory.EINVALID, "key %q: %q is not a valid org or agent id", key, p)
		}
	}
	c := memory.Caller{OrgID: parts[0]}
	if parts[1] != memory.OrgScope {
		c.AgentID = parts[1]
	}
	return c, nil
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pipeline) log() *slog.Logger {
	if p.Log != nil {
		return p.Log
	}
	return slog.Default()
}

// Ingest indexes the document stored under key for caller c: a document
// memory and one fragment memory per chunk (documentId, position, offsets,
// total). Delivering the same content again changes nothing (the memories
// deduplicate); new content replaces the old fragments. A document that
// cannot be loaded ends as "failed" with the reason, and its previous
// version, if any, stays searchable. The returned status is also stored.
func (p *Pipeline) Ingest(ctx context.Context, c memory.Caller, key string, data []byte, etag string) (Status, error) {
	start := p.now()
	st := Status{ID: DocumentID(c.OrgID, key), OrgID: c.OrgID, AgentID: c.AgentID, Key: key, Name: path.Base(key),
		State: StatePending, Bytes: len(data), ETag: etag, StartedAt: start.UnixMilli()}
	if err := p.put(ctx, st); err != nil {
		return st, err
	}
	fail := func(err error) (Status, error) {
		st.State, st.Reason, st.FinishedAt = StateFailed, memory.ErrorMessage(err), p.now().UnixMilli()
		if memory.ErrorCode(err) == memory.EINTERNAL {
			st.Reason = "internal error"
		}
		if perr := p.put(ctx, st); perr != nil {
			return st, errors.Join(err, perr)
		}
		p.log().WarnContext(ctx, "document failed", "org", c.OrgID, "document", st.ID, "reason", st.Reason)
		return st, err
	}
	lim := p.Limits
	if p.MaxBytes != 0 {
		lim.MaxBytes = p.MaxBytes
	}
	text, err := lim.Load(ctx, st.Name, data)
	if err != nil {
		return fail(err)
	}
	chunks, err := lim.Split(st.Name, p.Splitter, text)
	if err != nil {
		return fail(err)
	}
	st.LoadMs = p.now().Sub(start).Milliseconds()
	scope := "org"
	if c.AgentID != "" {
		scope = "agent"
	}
	head := []rune(text)
	if len(head) > 500 {
		head = head[:500]
	}
	meta := func(extra string) []byte {
		return []byte(fmt.Sprintf(`{"key":%q,"name":%q%s}`, key, st.Name, extra))
	}
	in := []service.NewMemory{{Scope: scope, Type: memory.TypeDocument, DocumentID: st.ID,
		Content:  memory.Content{Text: st.Name + "\n" + string(head), Source: key},
		Metadata: meta(fmt.Sprintf(`,"bytes":%d,"fragments":%d`, len(data), len(chunks)))}}
	for _, ch := range chunks {
		pos := ch.Position
		in = append(in, service.NewMemory{Scope: scope, Type: memory.TypeFragment, DocumentID: st.ID, Position: &pos,
			Content:  memory.Content{Text: ch.Text, Source: key},
			Metadata: meta(fmt.Sprintf(`,"start":%d,"end":%d,"total":%d`, ch.Start, ch.End, len(chunks)))})
	}
	keep := map[string]bool{}
	var created []string
	for i := 0; i < len(in); i += memory.MaxBatch {
		res, err := p.Service.Create(ctx, c, in[i:min(len(in), i+memory.MaxBatch)])
		if err != nil {
			// Undo this run's new memories: nothing is left half-indexed.
			for _, id := range created {
				if derr := p.Service.Delete(ctx, c, id); derr != nil && !memory.IsNotFound(derr) {
					p.log().ErrorContext(ctx, "undo failed", "org", c.OrgID, "id", id, "err", derr)
				}
			}
			return fail(err)
		}
		for _, r := range res {
			keep[r.ID] = true
			if !r.Duplicate {
				created = append(created, r.ID)
			}
		}
	}
	// Replace: the document's memories that this version did not produce go.
	removed, err := p.prune(ctx, c, st.ID, keep)
	if err != nil {
		return fail(err)
	}
	st.State, st.Fragments, st.FinishedAt = StateIndexed, len(chunks), p.now().UnixMilli()
	st.IndexMs = st.FinishedAt - start.UnixMilli() - st.LoadMs
	p.log().InfoContext(ctx, "document indexed", "org", c.OrgID, "document", st.ID, "fragments", len(chunks),
		"new", len(created), "replaced", removed, "ms", st.FinishedAt-st.StartedAt)
	return st, p.put(ctx, st)
}

// prune deletes the document's memories whose ids are not in keep.
func (p *Pipeline) prune(ctx context.Context, c memory.Caller, docID string, keep map[string]bool) (int, error) {
	removed := 0
	cursor := ""
	var stale []string
	for {
		page, err := p.Service.List(ctx, c, memory.Filter{DocumentID: docID, IncludeArchived: true}, memory.MaxListLimit, cursor)
		if err != nil {
			return 0, err
		}
		for _, m := range page.Memories {
			if !keep[m.ID] {
				stale = append(stale, m.ID)
			}
		}
		if page.Next == nil {
			break
		}
		cursor = page.Next.Encode()
	}
	for _, id := range stale {
		if err := p.Service.Delete(ctx, c, id); err != nil && !memory.IsNotFound(err) {
			return removed, err
		}
		removed++
	}
	return removed, nil
}

// Remove deletes the document under key: its memories and its status.
func (p *Pipeline) Remove(ctx context.Context, c memory.Caller, key string) (int, error) {
	id := DocumentID(c.OrgID, key)
	n, err := p.Service.DeleteWhere(ctx, c, memory.Filter{DocumentID: id})
	if err != nil {
		return 0, err
	}
	return n, p.Records.DeleteRecord(ctx, c.OrgID, RecordKind, id)
}

// Get returns a document's status; ENOTFOUND, also for documents of an
// agent the caller cannot see.
func (p *Pipeline) Get(ctx context.Context, c memory.Caller, id string) (Status, error) {
	var st Status
	if _, err := p.Records.GetRecord(ctx, c.OrgID, RecordKind, id, &st); err != nil {
		return st, memory.Errorf(memory.ENOTFOUND, "document %q not found", id)
	}
	if !c.CanSee(st.OrgID, st.AgentID) {
		return Status{}, memory.Errorf(memory.ENOTFOUND, "document %q not found", id)
	}
	return st, nil
}

// List returns a page of the documents the caller can see.
func (p *Pipeline) List(ctx context.Context, c memory.Caller, after string, limit int) ([]Status, string, error) {
	if limit <= 0 || limit > 1000 {
		limit = 100
	}
	var out []Status
	for len(out) < limit {
		recs, next, err := p.Records.ListRecords(ctx, c.OrgID, RecordKind, after, limit)
		if err != nil {
			return nil, "", err
		}
		for _, r := range recs {
			var st Status
			if err := jsonUnmarshal(r.Value, &st); err == nil && c.CanSee(st.OrgID, st.AgentID) {
				out = append(out, st)
			}
			after = r.ID
		}
		if next == "" {
			return out, "", nil
		}
	}
	return out, after, nil
}

func (p *Pipeline) put(ctx context.Context, st Status) error {
	_, err := p.Records.PutRecord(ctx, st.OrgID, RecordKind, st.ID, st, 0)
	return err
}
