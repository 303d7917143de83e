package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"

	"log/slog"
	"path"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
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

// Service is what the pipeline uses of the memory service
// (service.Worker is one): documents are staged, then committed or
// discarded as one unit, and a document's memories deleted with it.
type Service interface {
	Stage(ctx context.Context, c memory.Caller, in []memory.NewMemory) ([]memory.CreateResult, error)
	CommitDocument(ctx context.Context, c memory.Caller, docID string, keep map[string]bool, kind, id string, value any) (memory.CommitResult, error)
	DiscardStaged(ctx context.Context, c memory.Caller, docID string) (int, error)
	ListStaged(ctx context.Context, f memory.Filter, cursor string) (memory.Page, error)
	DeleteWhere(ctx context.Context, c memory.Caller, f memory.Filter) (int, error)
}

// Pipeline loads, splits, embeds and indexes documents through the service.
type Pipeline struct {
	Service  Service
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
	// Commits, when set, finishes the document commits that a stopped
	// process left past their commit point (a store whose commit is not
	// one transaction, such as DynamoDB's); Recover runs it first.
	Commits CommitSettler

	locks [64]sync.Mutex // by document id hash: one run of a document at a time
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
//
// The new version appears all at once or not at all: its memories are
// staged (invisible) as they are embedded, then one commit step publishes
// them, retires the previous version's and records the "indexed" status.
// A failure, or the caller going away (ctx cancelled), before the commit
// discards what was staged; a crash leaves it to Recover.
func (p *Pipeline) Ingest(ctx context.Context, c memory.Caller, key string, data []byte, etag string) (Status, error) {
	id := DocumentID(c.OrgID, key)
	unlock := p.lock(id)
	defer unlock()
	start := p.now()
	st := Status{ID: id, OrgID: c.OrgID, AgentID: c.AgentID, Key: key, Name: path.Base(key),
		State: StatePending, Bytes: len(data), ETag: etag, StartedAt: start.UnixMilli()}
	if err := p.put(ctx, st); err != nil {
		return st, err
	}
	// From here on the clean-up must happen even when the caller has gone:
	// it runs on a context that is never cancelled.
	bg := context.WithoutCancel(ctx)
	fail := func(err error) (Status, error) {
		var errs []error
		if n, derr := p.Service.DiscardStaged(bg, c, st.ID); derr != nil {
			errs = append(errs, derr)
			p.log().ErrorContext(bg, "discarding a failed document's fragments", "org", c.OrgID, "document", st.ID, "err", derr)
		} else if n > 0 {
			p.log().InfoContext(bg, "discarded staged fragments", "org", c.OrgID, "document", st.ID, "count", n)
		}
		st.State, st.Reason, st.FinishedAt = StateFailed, memory.ErrorMessage(err), p.now().UnixMilli()
		if memory.ErrorCode(err) == memory.EINTERNAL {
			st.Reason = "internal error"
		}
		if ctx.Err() != nil {
			st.Reason = "cancelled: the request ended before the document was indexed; nothing was published"
		}
		if perr := p.put(bg, st); perr != nil {
			errs = append(errs, perr)
		}
		p.log().WarnContext(bg, "document failed", "org", c.OrgID, "document", st.ID, "reason", st.Reason)
		return st, errors.Join(append([]error{err}, errs...)...)
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
	in := []memory.NewMemory{{Scope: scope, Type: memory.TypeDocument, DocumentID: st.ID,
		Content:  memory.Content{Text: st.Name + "\n" + string(head), Source: key},
		Metadata: meta(fmt.Sprintf(`,"bytes":%d,"fragments":%d`, len(data), len(chunks)))}}
	for _, ch := range chunks {
		pos := ch.Position
		in = append(in, memory.NewMemory{Scope: scope, Type: memory.TypeFragment, DocumentID: st.ID, Position: &pos,
			Content:  memory.Content{Text: ch.Text, Source: key},
			Metadata: meta(fmt.Sprintf(`,"start":%d,"end":%d,"total":%d`, ch.Start, ch.End, len(chunks)))})
	}
	keep := map[string]bool{}
	staged := 0
	for i := 0; i < len(in); i += memory.MaxBatch {
		res, err := p.Service.Stage(ctx, c, in[i:min(len(in), i+memory.MaxBatch)])
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			return fail(err)
		}
		for _, r := range res {
			keep[r.ID] = true
			if !r.Duplicate {
				staged++
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err) // nobody waits for the answer: publish nothing
	}
	st.State, st.Fragments, st.FinishedAt = StateIndexed, len(chunks), p.now().UnixMilli()
	st.IndexMs = st.FinishedAt - start.UnixMilli() - st.LoadMs
	res, err := p.Service.CommitDocument(bg, c, st.ID, keep, RecordKind, st.ID, st)
	if err != nil {
		st.State, st.Fragments, st.FinishedAt, st.IndexMs = StatePending, 0, 0, 0
		return fail(err)
	}
	p.log().InfoContext(ctx, "document indexed", "org", c.OrgID, "document", st.ID, "fragments", len(chunks),
		"new", res.Committed, "replaced", res.Retired, "ms", st.FinishedAt-st.StartedAt)
	return st, nil
}

// lock serializes the runs of one document in this process: a run's
// staged memories are then all its own.
func (p *Pipeline) lock(id string) func() {
	h := fnv.New32a()
	h.Write([]byte(id))
	m := &p.locks[h.Sum32()%uint32(len(p.locks))]
	m.Lock()
	return m.Unlock
}

// Interrupted is the reason of a document whose ingestion was cut short by
// a crash or a stop, found by Recover.
const Interrupted = "interrupted: the server stopped while indexing this document; nothing of this version was published, upload it again"

// CommitSettler finishes interrupted document commits of an org and
// returns how many memories it flipped (see dynamodb.Store.SettleCommits).
type CommitSettler interface {
	SettleCommits(ctx context.Context, org string) (int, error)
}

// Recovered counts what Recover repaired.
type Recovered struct {
	Documents int `json:"documents"` // documents left pending, now failed
	Memories  int `json:"memories"`  // staged memories discarded (unpublished or retired)
	Settled   int `json:"settled"`   // memories of interrupted commits rolled forward
}

// Recover repairs what interrupted runs left in org: staged memories are
// discarded (those of a version never committed, and those a commit
// retired but had not yet deleted) and documents left pending are marked
// failed, so their previous version, if any, stays the visible one. The
// documents are rolled back rather than resumed because their bytes are
// gone with the request that carried them (an S3 delivery is retried by
// its queue). Runs that started less than grace ago may still be in
// flight and are left alone: 0 at the start of the only process, longer
// than the ingest function's timeout for the scheduled pass in AWS.
func (p *Pipeline) Recover(ctx context.Context, org string, grace time.Duration) (Recovered, error) {
	var out Recovered
	if p.Commits != nil {
		// Committed documents first: their memories are not staged ones
		// to discard, whatever the pending attribute still says.
		n, err := p.Commits.SettleCommits(ctx, org)
		out.Settled = n
		if err != nil {
			return out, fmt.Errorf("recover %s: %w", org, err)
		}
	}
	c := memory.Caller{OrgID: org}
	inflight := map[string]bool{}
	cutoff := p.now().Add(-grace).UnixMilli()
	after := ""
	for {
		recs, next, err := p.Records.ListRecords(ctx, org, RecordKind, after, 500)
		if err != nil {
			return out, fmt.Errorf("recover %s: %w", org, err)
		}
		for _, r := range recs {
			var st Status
			if err := jsonUnmarshal(r.Value, &st); err != nil || st.State != StatePending {
				continue
			}
			if grace > 0 && st.StartedAt > cutoff {
				inflight[st.ID] = true
				continue
			}
			unlock := p.lock(st.ID)
			n, err := p.Service.DiscardStaged(ctx, c, st.ID)
			out.Memories += n
			if err == nil {
				st.State, st.Reason, st.FinishedAt = StateFailed, Interrupted, p.now().UnixMilli()
				_, err = p.Records.PutRecord(ctx, org, RecordKind, st.ID, st, r.Version)
			}
			unlock()
			if memory.IsConflict(err) {
				continue // a new run took it over meanwhile
			}
			if err != nil {
				return out, fmt.Errorf("recover %s/%s: %w", org, st.ID, err)
			}
			out.Documents++
			p.log().WarnContext(ctx, "interrupted document rolled back", "org", org, "document", st.ID, "discarded", n)
		}
		if next == "" {
			break
		}
		after = next
	}
	// Staged memories of documents that are not pending: a commit retired
	// them and stopped before deleting them (or the run's status was lost).
	docs, err := p.stagedDocuments(ctx, org)
	if err != nil {
		return out, err
	}
	for _, d := range docs {
		if inflight[d] {
			continue
		}
		unlock := p.lock(d)
		n, err := p.Service.DiscardStaged(ctx, c, d)
		unlock()
		out.Memories += n
		if err != nil {
			return out, fmt.Errorf("recover %s/%s: %w", org, d, err)
		}
	}
	return out, nil
}

// stagedDocuments lists the documents of org that have staged memories.
func (p *Pipeline) stagedDocuments(ctx context.Context, org string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	var cur string
	f := memory.Filter{OrgID: org, IncludeArchived: true, Pending: true}
	for {
		page, err := p.Service.ListStaged(ctx, f, cur)
		if err != nil {
			return nil, fmt.Errorf("recover %s: %w", org, err)
		}
		for _, m := range page.Memories {
			if m.Pending && m.DocumentID != "" && !seen[m.DocumentID] {
				seen[m.DocumentID] = true
				out = append(out, m.DocumentID)
			}
		}
		if page.Next == nil {
			return out, nil
		}
		cur = page.Next.Encode()
	}
}

// RecoverAll runs Recover for every org orgs lists, and logs the totals.
func (p *Pipeline) RecoverAll(ctx context.Context, orgs memory.OrgLister, grace time.Duration) (Recovered, error) {
	var total Recovered
	list, err := orgs.Orgs(ctx)
	if err != nil {
		return total, fmt.Errorf("recover: orgs: %w", err)
	}
	for _, org := range list {
		r, err := p.Recover(ctx, org, grace)
		total.Documents += r.Documents
		total.Memories += r.Memories
		total.Settled += r.Settled
		if err != nil {
			return total, err
		}
	}
	if total.Documents > 0 || total.Memories > 0 || total.Settled > 0 {
		p.log().InfoContext(ctx, "ingestion recovered", "documents_rolled_back", total.Documents, "staged_discarded", total.Memories,
			"commits_settled", total.Settled)
	}
	return total, nil
}

// Remove deletes the document under key: its memories, staged ones
// included, and its status. It waits for a run of the document in progress.
func (p *Pipeline) Remove(ctx context.Context, c memory.Caller, key string) (int, error) {
	id := DocumentID(c.OrgID, key)
	unlock := p.lock(id)
	defer unlock()
	n, err := p.Service.DeleteWhere(ctx, c, memory.Filter{DocumentID: id})
	if err != nil {
		return 0, err
	}
	if _, err := p.Service.DiscardStaged(ctx, memory.Caller{OrgID: c.OrgID}, id); err != nil {
		return n, err
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
	if !c.CanSee(st.OrgID, st.AgentID, "") {
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
			if err := jsonUnmarshal(r.Value, &st); err == nil && c.CanSee(st.OrgID, st.AgentID, "") {
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
