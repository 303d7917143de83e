package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/termkit"
)

// The knowledge index (memory.TermIndex) lives in the same database as the
// memories, and every write to it is one transaction. Each row of a ref, a
// term posting or a property posting carries the attributes of its memory
// under the column names of the memories table (world_id and audience
// included, added by migrate), so the Filter renders with the same where().
//
//	knowledge_refs    (org, kind, name, memory, ordinal)  the refs as JSON, in List order; by (org, memory) too
//	knowledge_terms   (org, term, created_at, memory, ordinal, role)   postings, newest first per term
//	knowledge_props   (org, name, value, created_at, memory, ordinal)  property postings
//	knowledge_vocab   (org, scope, term) -> live, archived refs         counters for prefix completion
//	knowledge_status  (org, memory) -> state, extractor, refs           pending / done
//
// The vocabulary counters are kept per agent scope ("a:" + agent, "a:" for
// the org scope) and for the whole org ("*"), so that a prefix completion
// for an org-level caller is one range scan of (org, "*", term), and for an
// agent-bound one the merge of two.
const knowledgeSchema = `
CREATE TABLE IF NOT EXISTS knowledge_status (
	org_id     TEXT    NOT NULL,
	memory_id  TEXT    NOT NULL,
	state      TEXT    NOT NULL,
	extractor  TEXT    NOT NULL,
	refs       INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (org_id, memory_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_status_state ON knowledge_status (org_id, state, memory_id);
CREATE TABLE IF NOT EXISTS knowledge_refs (
	org_id      TEXT    NOT NULL,
	memory_id   TEXT    NOT NULL,
	ordinal     INTEGER NOT NULL,
	ref_kind    TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	body        BLOB    NOT NULL,
	agent_id    TEXT    NOT NULL,
	type        TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	room_id     TEXT    NOT NULL,
	entity_id   TEXT    NOT NULL,
	session_id  TEXT    NOT NULL,
	document_id TEXT    NOT NULL,
	durability  TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	archived    INTEGER NOT NULL,
	PRIMARY KEY (org_id, ref_kind, name, memory_id, ordinal)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_refs_memory ON knowledge_refs (org_id, memory_id, ordinal);
CREATE TABLE IF NOT EXISTS knowledge_terms (
	org_id      TEXT    NOT NULL,
	term        TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	memory_id   TEXT    NOT NULL,
	ordinal     INTEGER NOT NULL,
	role        TEXT    NOT NULL,
	ref_kind    TEXT    NOT NULL,
	agent_id    TEXT    NOT NULL,
	type        TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	room_id     TEXT    NOT NULL,
	entity_id   TEXT    NOT NULL,
	session_id  TEXT    NOT NULL,
	document_id TEXT    NOT NULL,
	durability  TEXT    NOT NULL,
	archived    INTEGER NOT NULL,
	PRIMARY KEY (org_id, term, created_at, memory_id, ordinal, role)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_terms_memory ON knowledge_terms (org_id, memory_id);
CREATE TABLE IF NOT EXISTS knowledge_props (
	org_id      TEXT    NOT NULL,
	name        TEXT    NOT NULL,
	value       TEXT    NOT NULL,
	created_at  INTEGER NOT NULL,
	memory_id   TEXT    NOT NULL,
	ordinal     INTEGER NOT NULL,
	ref_kind    TEXT    NOT NULL,
	agent_id    TEXT    NOT NULL,
	type        TEXT    NOT NULL,
	kind        TEXT    NOT NULL,
	room_id     TEXT    NOT NULL,
	entity_id   TEXT    NOT NULL,
	session_id  TEXT    NOT NULL,
	document_id TEXT    NOT NULL,
	durability  TEXT    NOT NULL,
	archived    INTEGER NOT NULL,
	PRIMARY KEY (org_id, name, value, created_at, memory_id, ordinal)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_props_memory ON knowledge_props (org_id, memory_id);
CREATE TABLE IF NOT EXISTS knowledge_vocab (
	org_id   TEXT    NOT NULL,
	scope    TEXT    NOT NULL,
	term     TEXT    NOT NULL,
	live     INTEGER NOT NULL,
	archived INTEGER NOT NULL,
	PRIMARY KEY (org_id, scope, term)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS knowledge_vocab_rank ON knowledge_vocab (org_id, scope, live DESC, term);
`

var (
	_ memory.TermIndex = (*Store)(nil)
	_ memory.RefNamer  = (*Store)(nil)
)

// attrCols are the memory attributes every knowledge row carries, in the
// order scanAttrs reads them.
const attrCols = "org_id, agent_id, type, kind, room_id, entity_id, session_id, document_id, durability, created_at, archived, world_id, audience"

func attrArgs(a memory.Attrs) []any {
	return []any{a.OrgID, a.AgentID, string(a.Type), string(a.Kind), a.RoomID, a.EntityID, a.SessionID,
		a.DocumentID, string(a.Durability), a.CreatedAt, a.Archived, a.WorldID, a.Audience}
}

// attrDests returns scan destinations for attrCols into a.
func attrDests(a *memory.Attrs) []any {
	return []any{&a.OrgID, &a.AgentID, (*string)(&a.Type), (*string)(&a.Kind), &a.RoomID, &a.EntityID, &a.SessionID,
		&a.DocumentID, (*string)(&a.Durability), &a.CreatedAt, &a.Archived, &a.WorldID, &a.Audience}
}

// termsOp wraps a database error of a knowledge operation; context
// cancellation and memory errors pass through.
func termsOp(op string, err error) error {
	if err == nil {
		return nil
	}
	var me *memory.Error
	if errors.As(err, &me) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("sqlite: %s: %w", op, busy(err))
}

// PutKnowledge implements memory.TermIndex in one transaction.
func (s *Store) PutKnowledge(ctx context.Context, orgID, memoryID string, attrs memory.Attrs, extractor string, refs []memory.SemanticRef) error {
	written, err := s.PutKnowledgeMany(ctx, orgID, extractor, []memory.KnowledgePut{{MemoryID: memoryID, Attrs: attrs, Refs: refs}})
	if err != nil {
		return err
	}
	if len(written) == 0 {
		return termsOp("put knowledge", memory.ErrNotFound(memoryID))
	}
	return nil
}

var _ memory.KnowledgeBatcher = (*Store)(nil)

// putChunk is how many memories' knowledge one transaction of
// PutKnowledgeMany writes: a page of the worker's ExtractPending.
const putChunk = memory.MaxKnowledgePage

// PutKnowledgeMany implements memory.KnowledgeBatcher: one transaction per
// 500 memories, one multi-row statement per table. Ingesting a batch of
// messages wrote each one's knowledge in a transaction of its own; the
// commits (one fsync each) and the statements prepared per memory were
// two thirds of the ingest's CPU.
func (s *Store) PutKnowledgeMany(ctx context.Context, orgID, extractor string, puts []memory.KnowledgePut) ([]string, error) {
	valid := make([]memory.KnowledgePut, 0, len(puts))
	at := map[string]int{}
	for _, p := range puts {
		attrs, refs, err := termkit.ValidPut(orgID, p.MemoryID, p.Attrs, extractor, p.Refs)
		if err != nil {
			return nil, err
		}
		p.Attrs, p.Refs = attrs, refs
		if i, ok := at[p.MemoryID]; ok {
			valid[i] = p // the last put of a memory wins, as one by one
			continue
		}
		at[p.MemoryID] = len(valid)
		valid = append(valid, p)
	}
	if err := s.prepareWrites(ctx); err != nil {
		return nil, termsOp("put knowledge", err)
	}
	var written []string
	for len(valid) > 0 {
		chunk := valid[:min(putChunk, len(valid))]
		valid = valid[len(chunk):]
		var done []string
		err := termsOp("put knowledge", s.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			done, err = putKnowledge(ctx, tx, s.writeStmt, orgID, extractor, chunk)
			return err
		}))
		if err != nil {
			return written, err
		}
		written = append(written, done...)
	}
	return written, nil
}

// putKnowledge replaces the knowledge of the puts' memories that the store
// holds, and returns their ids.
func putKnowledge(ctx context.Context, tx *sql.Tx, prep preparer, orgID, extractor string, puts []memory.KnowledgePut) ([]string, error) {
	ids := make([]any, 0, len(puts)+1)
	ids = append(ids, orgID)
	for _, p := range puts {
		ids = append(ids, p.MemoryID)
	}
	rows, err := tx.QueryContext(ctx, `SELECT id FROM memories WHERE org_id = ? AND id IN (`+placeholders(len(puts))+`)`, ids...)
	if err != nil {
		return nil, err
	}
	present := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		present[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var written []string
	for _, p := range puts {
		if present[p.MemoryID] {
			written = append(written, p.MemoryID)
		}
	}
	if len(written) == 0 {
		return nil, nil
	}
	delta, err := oldVocabulary(ctx, tx, orgID, written)
	if err != nil {
		return nil, err
	}
	if err := deleteKnowledgeRows(ctx, tx, orgID, written); err != nil {
		return nil, err
	}
	kr := newKnowledgeRows(prep)
	status := newStatusBulk(prep)
	now := time.Now().UnixMilli()
	for _, p := range puts {
		if !present[p.MemoryID] {
			continue
		}
		delta.AddVocabulary(p.Attrs, p.Refs, +1)
		if err := kr.add(ctx, tx, p.Attrs, p.MemoryID, p.Refs); err != nil {
			return nil, err
		}
		if err := status.add(ctx, tx, orgID, p.MemoryID, memory.KnowledgeDone, extractor, len(p.Refs), now); err != nil {
			return nil, err
		}
	}
	if err := kr.flush(ctx, tx); err != nil {
		return nil, err
	}
	if err := applyVocabulary(ctx, tx, prep, orgID, delta); err != nil {
		return nil, err
	}
	return written, status.flush(ctx, tx)
}

// inTx runs fn in a write transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// oldVocabulary returns the negated vocabulary counts of what the memories
// have indexed now: per memory and term, the refs indexed under it, in the
// scope and archived state of the memory.
func oldVocabulary(ctx context.Context, tx *sql.Tx, orgID string, memoryIDs []string) (termkit.VocabularyDelta, error) {
	args := append([]any{orgID}, anys(memoryIDs)...)
	rows, err := tx.QueryContext(ctx, `SELECT term, COUNT(DISTINCT ordinal), agent_id, archived FROM knowledge_terms
		INDEXED BY knowledge_terms_memory WHERE org_id = ? AND memory_id IN (`+placeholders(len(memoryIDs))+`)
		GROUP BY memory_id, term`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	d := termkit.VocabularyDelta{}
	for rows.Next() {
		var term, agent string
		var n int
		var archived bool
		if err := rows.Scan(&term, &n, &agent, &archived); err != nil {
			return nil, err
		}
		if strings.HasPrefix(term, memory.SentenceTermPrefix) {
			continue // not vocabulary (memory.DistinctTerms)
		}
		for _, scope := range []string{termkit.ScopeAll, termkit.ScopeOf(agent)} {
			k := termkit.ScopedTerm{Scope: scope, Term: term}
			v := d[k]
			if archived {
				v.Archived -= n
			} else {
				v.Live -= n
			}
			d[k] = v
		}
	}
	return d, rows.Err()
}

// applyVocabulary adds delta to the counters and removes the counters that
// reach zero; prep, when not nil, prepares the full statements once.
func applyVocabulary(ctx context.Context, tx *sql.Tx, prep preparer, orgID string, delta termkit.VocabularyDelta) error {
	up, gc := newVocabularyBulks(prep)
	for _, k := range delta.Sorted() {
		d := delta[k]
		if d == (termkit.TermDelta{}) {
			continue
		}
		if err := up.add(ctx, tx, orgID, k.Scope, k.Term, d.Live, d.Archived); err != nil {
			return err
		}
		if d.Live < 0 || d.Archived < 0 {
			if err := gc.add(ctx, tx, orgID, k.Scope, k.Term); err != nil {
				return err
			}
		}
	}
	if err := up.flush(ctx, tx); err != nil {
		return err
	}
	return gc.flush(ctx, tx)
}

// bulk accumulates the rows of a multi-row statement, head VALUES
// (?,...),(?,...) tail, and runs it every bulkRows rows: one statement
// per table instead of one per row.
type bulk struct {
	head, tail string
	cols, rows int
	args       []any
	// key, when set, holds the rows until flush and inserts them in the
	// order of these columns (the table's primary key).
	key  []int
	held [][]any
	// prep, when set, prepares the statement of bulkRows rows once.
	prep preparer
}

const bulkRows = 256

// newStatusBulk returns the upsert of extraction statuses.
func newStatusBulk(prep preparer) *bulk {
	b := newBulk(`INSERT INTO knowledge_status (org_id, memory_id, state, extractor, refs, updated_at) VALUES`, 6,
		` ON CONFLICT (org_id, memory_id) DO UPDATE SET state = excluded.state,
		extractor = excluded.extractor, refs = excluded.refs, updated_at = excluded.updated_at`)
	b.prep = prep
	return b
}

// newVocabularyBulks returns the counters' upsert and the removal of the
// counters that reach zero.
func newVocabularyBulks(prep preparer) (up, gc *bulk) {
	up = newBulk(`INSERT INTO knowledge_vocab (org_id, scope, term, live, archived) VALUES`, 5,
		` ON CONFLICT (org_id, scope, term) DO UPDATE SET live = live + excluded.live, archived = archived + excluded.archived`)
	gc = newBulk(`DELETE FROM knowledge_vocab WHERE live <= 0 AND archived <= 0 AND (org_id, scope, term) IN (VALUES`, 3, `)`)
	up.prep, gc.prep = prep, prep
	return up, gc
}

// knowledgeBulks are the multi-row statements of a knowledge write, for
// prepareWrites.
func knowledgeBulks() []*bulk {
	kr := newKnowledgeRows(nil)
	up, gc := newVocabularyBulks(nil)
	return []*bulk{kr.ref, kr.term, kr.prop, newStatusBulk(nil), up, gc}
}

func newBulk(head string, cols int, tail string) *bulk {
	return &bulk{head: head, tail: tail, cols: cols}
}

// newSortedBulk returns a bulk that inserts its rows in the order of the
// key columns (indexes into a row's values). A transaction's postings,
// inserted term after term instead of memory after memory, land on the
// same B-tree pages one after the other.
func newSortedBulk(head string, cols int, key ...int) *bulk {
	return &bulk{head: head, cols: cols, key: key}
}

func (b *bulk) add(ctx context.Context, tx *sql.Tx, vals ...any) error {
	if b.key != nil {
		b.held = append(b.held, vals)
		return nil
	}
	b.args = append(b.args, vals...)
	if b.rows++; b.rows == bulkRows {
		return b.write(ctx, tx)
	}
	return nil
}

// flush inserts the rows added since the last flush.
func (b *bulk) flush(ctx context.Context, tx *sql.Tx) error {
	if b.key == nil {
		return b.write(ctx, tx)
	}
	slices.SortStableFunc(b.held, func(x, y []any) int {
		for _, i := range b.key {
			if c := compareValue(x[i], y[i]); c != 0 {
				return c
			}
		}
		return 0
	})
	for _, vals := range b.held {
		b.args = append(b.args, vals...)
		if b.rows++; b.rows == bulkRows {
			if err := b.write(ctx, tx); err != nil {
				return err
			}
		}
	}
	b.held = b.held[:0]
	return b.write(ctx, tx)
}

// write runs the statement of the rows in args.
func (b *bulk) write(ctx context.Context, tx *sql.Tx) error {
	if b.rows == 0 {
		return nil
	}
	q := b.sql(b.rows)
	var err error
	if st := b.prepared(q); st != nil {
		_, err = tx.StmtContext(ctx, st).ExecContext(ctx, b.args...)
	} else {
		_, err = tx.ExecContext(ctx, q, b.args...)
	}
	b.rows, b.args = 0, b.args[:0]
	return err
}

// sql is the statement of n rows.
func (b *bulk) sql(n int) string {
	row := "(" + placeholders(b.cols) + ")"
	return b.head + " " + strings.TrimSuffix(strings.Repeat(row+",", n), ",") + b.tail
}

// prepared returns the prepared statement of q, or nil.
func (b *bulk) prepared(q string) *sql.Stmt {
	if b.prep == nil || b.rows != bulkRows {
		return nil
	}
	return b.prep(q)
}

// compareValue orders two key values of a row as SQLite orders them:
// numbers before text, text bytewise.
func compareValue(x, y any) int {
	switch x := x.(type) {
	case string:
		if y, ok := y.(string); ok {
			return strings.Compare(x, y)
		}
		return 1
	case int64:
		if y, ok := y.(int64); ok {
			return cmp.Compare(x, y)
		}
	case int:
		if y, ok := y.(int); ok {
			return cmp.Compare(x, y)
		}
	}
	if _, ok := y.(string); ok {
		return -1
	}
	return 0
}

// byMemory names the knowledge tables with the index that finds a memory's
// rows; SQLite, without statistics, would rather scan the org's part of
// the primary key.
var byMemory = []string{"knowledge_refs INDEXED BY knowledge_refs_memory", "knowledge_terms INDEXED BY knowledge_terms_memory",
	"knowledge_props INDEXED BY knowledge_props_memory"}

func deleteKnowledgeRows(ctx context.Context, tx *sql.Tx, orgID string, memoryIDs []string) error {
	args := append([]any{orgID}, anys(memoryIDs)...)
	for _, table := range byMemory {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE org_id = ? AND memory_id IN (`+placeholders(len(memoryIDs))+`)`, args...); err != nil {
			return err
		}
	}
	return nil
}

// anys returns ss as query arguments.
func anys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// knowledgeRows accumulates the ref, term and property rows of memories'
// knowledge for multi-row inserts.
type knowledgeRows struct{ ref, term, prop *bulk }

func newKnowledgeRows(prep preparer) *knowledgeRows {
	// Each table's rows in the order of its primary key.
	k := &knowledgeRows{
		ref: newSortedBulk(`INSERT INTO knowledge_refs (org_id, memory_id, ordinal, ref_kind, name, body, agent_id, type, kind,
		room_id, entity_id, session_id, document_id, durability, created_at, archived, world_id, audience) VALUES`, 18, 0, 3, 4, 1, 2),
		term: newSortedBulk(`INSERT INTO knowledge_terms (org_id, term, created_at, memory_id, ordinal, role, ref_kind, agent_id,
		type, kind, room_id, entity_id, session_id, document_id, durability, archived, world_id, audience) VALUES`, 18, 0, 1, 2, 3, 4, 5),
		prop: newSortedBulk(`INSERT INTO knowledge_props (org_id, name, value, created_at, memory_id, ordinal, ref_kind, agent_id,
		type, kind, room_id, entity_id, session_id, document_id, durability, archived, world_id, audience) VALUES`, 18, 0, 1, 2, 3, 4, 5),
	}
	k.ref.prep, k.term.prep, k.prop.prep = prep, prep, prep
	return k
}

// add adds the rows of one memory's refs.
func (k *knowledgeRows) add(ctx context.Context, tx *sql.Tx, a memory.Attrs, memoryID string, refs []memory.SemanticRef) error {
	ref, term, prop := k.ref, k.term, k.prop
	rest := []any{a.AgentID, string(a.Type), string(a.Kind), a.RoomID, a.EntityID, a.SessionID, a.DocumentID, string(a.Durability)}
	for _, r := range refs {
		body, err := json.Marshal(r)
		if err != nil {
			return err
		}
		if err := ref.add(ctx, tx, append(append([]any{a.OrgID, memoryID, r.Ordinal, string(r.Kind), memory.KnowledgeName(r), body},
			rest...), a.CreatedAt, a.Archived, a.WorldID, a.Audience)...); err != nil {
			return err
		}
		for _, t := range memory.IndexedTerms(r) {
			if err := term.add(ctx, tx, append(append([]any{a.OrgID, t.Term, a.CreatedAt, memoryID, r.Ordinal, t.Role, string(r.Kind)},
				rest...), a.Archived, a.WorldID, a.Audience)...); err != nil {
				return err
			}
		}
		for _, p := range termkit.StoredProperties(r) {
			if err := prop.add(ctx, tx, append(append([]any{a.OrgID, p.Name, p.Value, a.CreatedAt, memoryID, r.Ordinal, string(r.Kind)},
				rest...), a.Archived, a.WorldID, a.Audience)...); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush inserts the rows accumulated.
func (k *knowledgeRows) flush(ctx context.Context, tx *sql.Tx) error {
	for _, b := range []*bulk{k.ref, k.term, k.prop} {
		if err := b.flush(ctx, tx); err != nil {
			return err
		}
	}
	return nil
}

// DeleteKnowledge implements memory.TermIndex in one transaction.
func (s *Store) DeleteKnowledge(ctx context.Context, orgID string, memoryIDs []string) error {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return err
	}
	if len(memoryIDs) == 0 {
		return nil
	}
	return termsOp("delete knowledge", s.inTx(ctx, func(tx *sql.Tx) error {
		for _, id := range memoryIDs {
			delta, err := oldVocabulary(ctx, tx, orgID, []string{id})
			if err != nil {
				return err
			}
			if err := deleteKnowledgeRows(ctx, tx, orgID, []string{id}); err != nil {
				return err
			}
			if err := applyVocabulary(ctx, tx, nil, orgID, delta); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM knowledge_status WHERE org_id = ? AND memory_id = ?`, orgID, id); err != nil {
				return err
			}
		}
		return nil
	}))
}

// SetKnowledgeAttrs implements memory.TermIndex in one transaction.
func (s *Store) SetKnowledgeAttrs(ctx context.Context, orgID, memoryID string, attrs memory.Attrs) error {
	attrs, _, err := termkit.ValidPut(orgID, memoryID, attrs, "", nil)
	if err != nil {
		return err
	}
	return termsOp("set knowledge attrs", s.inTx(ctx, func(tx *sql.Tx) error {
		delta, err := oldVocabulary(ctx, tx, orgID, []string{memoryID})
		if err != nil || len(delta) == 0 {
			return err
		}
		// The same terms, counted in the new scope and archived state.
		refs := map[string]int{}
		for k, d := range delta {
			if k.Scope == termkit.ScopeAll {
				refs[k.Term] = -(d.Live + d.Archived)
			}
		}
		for term, n := range refs {
			for _, scope := range []string{termkit.ScopeAll, termkit.ScopeOf(attrs.AgentID)} {
				k := termkit.ScopedTerm{Scope: scope, Term: term}
				v := delta[k]
				if attrs.Archived {
					v.Archived += n
				} else {
					v.Live += n
				}
				delta[k] = v
			}
		}
		set := `agent_id = ?, type = ?, kind = ?, room_id = ?, entity_id = ?, session_id = ?, document_id = ?,
			durability = ?, created_at = ?, archived = ?, world_id = ?, audience = ?`
		args := append(attrArgs(attrs)[1:], orgID, memoryID)
		for _, table := range byMemory {
			if _, err := tx.ExecContext(ctx, `UPDATE `+table+` SET `+set+` WHERE org_id = ? AND memory_id = ?`, args...); err != nil {
				return err
			}
		}
		return applyVocabulary(ctx, tx, nil, orgID, delta)
	}))
}

// MarkKnowledgePending implements memory.TermIndex.
func (s *Store) MarkKnowledgePending(ctx context.Context, orgID string, memoryIDs []string) error {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	for chunk := range slices.Chunk(memoryIDs, idsPerStatement) {
		args := inArgs(chunk, memory.KnowledgePending, now, orgID)
		if _, err := s.w.ExecContext(ctx, `INSERT INTO knowledge_status (org_id, memory_id, state, extractor, refs, updated_at)
			SELECT org_id, id, ?1, '', 0, ?2 FROM memories WHERE org_id = ?3 AND id IN (`+placeholders(len(chunk))+`)
			ON CONFLICT (org_id, memory_id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at`, args...); err != nil {
			return termsOp("mark knowledge pending", err)
		}
	}
	return nil
}

// PendingKnowledge implements memory.TermIndex.
func (s *Store) PendingKnowledge(ctx context.Context, orgID, after string, limit int) ([]memory.KnowledgeStatus, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "term index: pending without org")
	}
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	// By the index of states: SQLite, without statistics, would rather
	// walk the primary key in memory_id order past every done memory of
	// the org (20 ms at 140,000 memories, against 31 µs).
	rows, err := s.query(ctx, `SELECT org_id, memory_id, state, extractor, refs, updated_at FROM knowledge_status
		INDEXED BY knowledge_status_state
		WHERE org_id = ? AND state = ? AND memory_id > ? ORDER BY memory_id LIMIT ?`, orgID, memory.KnowledgePending, after, limit)
	if err != nil {
		return nil, termsOp("pending knowledge", err)
	}
	out, err := scanStatuses(rows, orgID)
	return out, termsOp("pending knowledge", err)
}

func scanStatuses(rows *sql.Rows, orgID string) ([]memory.KnowledgeStatus, error) {
	defer rows.Close()
	var out []memory.KnowledgeStatus
	for rows.Next() {
		var st memory.KnowledgeStatus
		var org string
		if err := rows.Scan(&org, &st.MemoryID, (*string)(&st.State), &st.Extractor, &st.Refs, &st.UpdatedAt); err != nil {
			return nil, err
		}
		if org == orgID {
			out = append(out, st)
		}
	}
	return out, rows.Err()
}

// KnowledgeStatus implements memory.TermIndex.
func (s *Store) KnowledgeStatus(ctx context.Context, orgID string, memoryIDs []string) (map[string]memory.KnowledgeStatus, error) {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return nil, err
	}
	out := map[string]memory.KnowledgeStatus{}
	for chunk := range slices.Chunk(memoryIDs, idsPerStatement) {
		rows, err := s.query(ctx, `SELECT org_id, memory_id, state, extractor, refs, updated_at FROM knowledge_status
			WHERE org_id = ? AND memory_id IN (`+placeholders(len(chunk))+`)`, inArgs(chunk, orgID)...)
		if err != nil {
			return nil, termsOp("knowledge status", err)
		}
		sts, err := scanStatuses(rows, orgID)
		if err != nil {
			return nil, termsOp("knowledge status", err)
		}
		for _, st := range sts {
			out[st.MemoryID] = st
		}
	}
	return out, nil
}

// LookupTerms implements memory.TermIndex: per term, a backward range scan
// of (org, term, created_at, ...).
func (s *Store) LookupTerms(ctx context.Context, q memory.TermLookup) ([]memory.TermPosting, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	cond, args := where(q.Filter)
	if len(q.Roles) > 0 {
		cond += " AND role IN (" + placeholders(len(q.Roles)) + ")"
		for _, r := range q.Roles {
			args = append(args, r)
		}
	}
	cols := `term, role, memory_id, ordinal, ref_kind, ` + attrCols
	if q.KeysOnly {
		cols = `term, role, memory_id, ordinal, org_id`
	}
	query := `SELECT ` + cols + ` FROM knowledge_terms
		WHERE ` + cond + ` AND term = ? ORDER BY created_at DESC, memory_id DESC, ordinal DESC, role DESC LIMIT ?`
	var out []memory.TermPosting
	for _, term := range q.Terms {
		rows, err := s.query(ctx, query, append(args[:len(args):len(args)], term, q.Limit)...)
		if err != nil {
			return nil, termsOp("lookup terms", err)
		}
		for rows.Next() {
			var p memory.TermPosting
			var org string
			dest := []any{&p.Term, &p.Role, &p.Ref.MemoryID, &p.Ref.Ordinal}
			if q.KeysOnly {
				dest = append(dest, &org)
			} else {
				dest = append(append(dest, (*string)(&p.Kind)), attrDests(&p.Attrs)...)
			}
			if err := rows.Scan(dest...); err != nil {
				rows.Close()
				return nil, termsOp("lookup terms", err)
			}
			if !q.KeysOnly {
				org = p.Attrs.OrgID
			}
			if org == q.Filter.OrgID {
				out = append(out, p)
			}
		}
		if err := rows.Close(); err != nil {
			return nil, termsOp("lookup terms", err)
		}
	}
	return out, nil
}

// LookupProperty implements memory.TermIndex: a backward range scan of
// (org, name, value, created_at, ...).
func (s *Store) LookupProperty(ctx context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	if q.Op == memory.OpExact {
		return s.lookupProperty(ctx, q.Filter, q.Name, "value = ?", []any{q.Value}, q.Limit)
	}
	var all []memory.PropertyPosting
	for _, r := range termkit.Ranges(q) {
		var conds []string
		var args []any
		if r.Lo != "" {
			conds, args = append(conds, "value >= ?"), append(args, r.Lo)
		}
		if r.Hi != "" {
			conds, args = append(conds, "value < ?"), append(args, r.Hi)
		}
		if len(conds) == 0 {
			conds = []string{"1"}
		}
		ps, err := s.lookupProperty(ctx, q.Filter, r.Name, strings.Join(conds, " AND "), args, q.Limit)
		if err != nil {
			return nil, err
		}
		all = append(all, ps...)
	}
	return termkit.MergePropertyPostings(all, q.Limit), nil
}

// lookupProperty reads the newest postings of the property name whose
// value meets cond (with args), at most limit.
func (s *Store) lookupProperty(ctx context.Context, f memory.Filter, name, cond string, condArgs []any, limit int) ([]memory.PropertyPosting, error) {
	fc, args := where(f)
	args = append(append(append(args, name), condArgs...), limit)
	rows, err := s.query(ctx, `SELECT name, value, memory_id, ordinal, ref_kind, `+attrCols+` FROM knowledge_props
		WHERE `+fc+` AND name = ? AND `+cond+` ORDER BY created_at DESC, memory_id DESC, ordinal DESC LIMIT ?`, args...)
	if err != nil {
		return nil, termsOp("lookup property", err)
	}
	defer rows.Close()
	var out []memory.PropertyPosting
	for rows.Next() {
		var p memory.PropertyPosting
		dest := append([]any{&p.Property.Name, &p.Property.Value, &p.Ref.MemoryID, &p.Ref.Ordinal, (*string)(&p.Kind)}, attrDests(&p.Attrs)...)
		if err := rows.Scan(dest...); err != nil {
			return nil, termsOp("lookup property", err)
		}
		if p.Attrs.OrgID == f.OrgID {
			out = append(out, p)
		}
	}
	return out, termsOp("lookup property", rows.Err())
}

// Refs implements memory.TermIndex.
func (s *Store) Refs(ctx context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "term index: refs without org")
	}
	if len(keys) > memory.MaxRefKeys {
		return nil, memory.Errorf(memory.EINVALID, "keys: %d exceeds the limit of %d", len(keys), memory.MaxRefKeys)
	}
	out := make(map[memory.RefKey]memory.SemanticRef, len(keys))
	err := s.eachRefKey(ctx, orgID, keys, "body", func(k memory.RefKey, col []byte) error {
		var r memory.SemanticRef
		if err := json.Unmarshal(col, &r); err != nil {
			return fmt.Errorf("sqlite: refs: decode %v: %w", k, err)
		}
		out[k] = r
		return nil
	})
	if err != nil {
		return nil, termsOp("refs", err)
	}
	return out, nil
}

// eachRefKey calls fn with the column col of each ref of keys the org
// holds: one index seek per key, by (org, memory, ordinal), in chunks of
// refKeyChunk keys. Reading every ref of the keys' memories instead read
// the bodies of some six refs to use one.
func (s *Store) eachRefKey(ctx context.Context, orgID string, keys []memory.RefKey, col string, fn func(memory.RefKey, []byte) error) error {
	seen := make(map[memory.RefKey]bool, len(keys))
	uniq := make([]memory.RefKey, 0, len(keys))
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	for start := 0; start < len(uniq); start += refKeyChunk {
		chunk := uniq[start:min(len(uniq), start+refKeyChunk)]
		// Padded to a power of two with the last key again (its row comes
		// back twice, to the same effect), so that the statement cache
		// keeps a few shapes, not one per count.
		n := 1
		for n < len(chunk) {
			n *= 2
		}
		args := make([]any, 0, 2*n+1)
		for i := range n {
			k := chunk[min(i, len(chunk)-1)]
			args = append(args, k.MemoryID, k.Ordinal)
		}
		args = append(args, orgID)
		rows, err := s.query(ctx, `WITH k(m, o) AS (VALUES `+strings.Repeat("(?, ?), ", n-1)+`(?, ?))
			SELECT r.memory_id, r.ordinal, r.`+col+` FROM k CROSS JOIN knowledge_refs r INDEXED BY knowledge_refs_memory
			ON r.org_id = ? AND r.memory_id = k.m AND r.ordinal = k.o`, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			var k memory.RefKey
			var v []byte
			if err := rows.Scan(&k.MemoryID, &k.Ordinal, &v); err != nil {
				rows.Close()
				return err
			}
			if err := fn(k, v); err != nil {
				rows.Close()
				return err
			}
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

// refKeyChunk is the most keys of one eachRefKey query (two parameters
// each), a power of two.
const refKeyChunk = 256

// RefNames implements memory.RefNamer from the index by memory alone: in a
// WITHOUT ROWID table a secondary index holds the primary key, whose name
// column is KnowledgeName, so no ref body is read.
func (s *Store) RefNames(ctx context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]string, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "term index: ref names without org")
	}
	if len(keys) > memory.MaxRefKeys {
		return nil, memory.Errorf(memory.EINVALID, "keys: %d exceeds the limit of %d", len(keys), memory.MaxRefKeys)
	}
	out := make(map[memory.RefKey]string, len(keys))
	err := s.eachRefKey(ctx, orgID, keys, "name", func(k memory.RefKey, name []byte) error {
		if len(name) > 0 {
			out[k] = string(name)
		}
		return nil
	})
	if err != nil {
		return nil, termsOp("ref names", err)
	}
	return out, nil
}

// prefixRange renders "col starts with prefix" as a range on col, which an
// index answers: col >= prefix AND col < prefix || 0xff (no UTF-8 text
// holds the byte 0xff).
func prefixRange(col, prefix string) (string, []any) {
	if prefix == "" {
		return "", nil
	}
	return " AND " + col + " >= ? AND " + col + " < ?", []any{prefix, prefix + "\xff"}
}

// Terms implements memory.TermIndex. A filter that the counters answer
// without archived memories reads the most frequent terms of its one or two
// scopes (topLive); with archived memories it sums the counters of the
// prefix's range. Any other filter counts the distinct refs of the postings
// of the prefix's terms that it selects.
func (s *Store) Terms(ctx context.Context, f memory.Filter, prefix string, limit int) ([]memory.TermCount, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if err := memory.ValidPrefix(prefix); err != nil {
		return nil, err
	}
	limit, err := memory.TermsLimit(limit)
	if err != nil {
		return nil, err
	}
	scopes, ok := termkit.VocabularyScopes(f)
	switch {
	case ok && len(scopes) == 0:
		return nil, nil
	case ok && !f.IncludeArchived:
		out, err := s.topTerms(ctx, f.OrgID, scopes, prefix, limit)
		return out, termsOp("terms", err)
	}
	rng, rargs := prefixRange("term", prefix)
	var query string
	var args []any
	if ok {
		args = []any{f.OrgID}
		for _, sc := range scopes {
			args = append(args, sc)
		}
		query = `SELECT term, SUM(live + archived) AS n FROM knowledge_vocab WHERE org_id = ? AND scope IN (` +
			placeholders(len(scopes)) + `)` + rng + ` GROUP BY term HAVING n > 0 ORDER BY n DESC, term LIMIT ?`
	} else {
		var cond string
		cond, args = where(f)
		// A topic sentence's words are not vocabulary (memory.DistinctTerms).
		query = `SELECT term, COUNT(*) AS n FROM (SELECT DISTINCT term, memory_id, ordinal FROM knowledge_terms WHERE ` +
			cond + rng + ` AND substr(term, 1, ?) <> ?) GROUP BY term ORDER BY n DESC, term LIMIT ?`
		rargs = append(rargs, len(memory.SentenceTermPrefix), memory.SentenceTermPrefix)
	}
	out, err := s.termCounts(ctx, query, append(append(args, rargs...), limit)...)
	return out, termsOp("terms", err)
}

var _ memory.TermCounter = (*Store)(nil)

// TermCounts implements memory.TermCounter: one grouped read of the
// vocabulary counters of f's scopes.
func (s *Store) TermCounts(ctx context.Context, f memory.Filter, terms []string) (map[string]int, bool, error) {
	if err := f.Validate(); err != nil {
		return nil, false, err
	}
	if len(terms) > memory.MaxQueryTerms {
		return nil, false, memory.Errorf(memory.EINVALID, "terms: %d exceeds the limit of %d", len(terms), memory.MaxQueryTerms)
	}
	scopes, ok := termkit.VocabularyScopes(f)
	if !ok {
		return nil, false, nil
	}
	out := make(map[string]int, len(terms))
	if len(scopes) == 0 || len(terms) == 0 {
		return out, true, nil
	}
	col := "live"
	if f.IncludeArchived {
		col = "live + archived"
	}
	args := []any{f.OrgID}
	for _, sc := range scopes {
		args = append(args, sc)
	}
	for _, t := range terms {
		args = append(args, t)
	}
	counts, err := s.termCounts(ctx, `SELECT term, SUM(`+col+`) FROM knowledge_vocab WHERE org_id = ? AND scope IN (`+
		placeholders(len(scopes))+`) AND term IN (`+placeholders(len(terms))+`) GROUP BY term`, args...)
	if err != nil {
		return nil, false, termsOp("term counts", err)
	}
	for _, tc := range counts {
		out[tc.Term] = tc.Count
	}
	return out, true, nil
}

func (s *Store) termCounts(ctx context.Context, query string, args ...any) ([]memory.TermCount, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []memory.TermCount
	for rows.Next() {
		var tc memory.TermCount
		if err := rows.Scan(&tc.Term, &tc.Count); err != nil {
			return nil, err
		}
		out = append(out, tc)
	}
	return out, rows.Err()
}

// smallRange is the most terms a prefix's range may hold to be read
// whole; a larger range is common enough that reading the scope's terms in
// count order meets limit matches soon. Reading r terms of the range costs
// about as much as reading limit·V/r in count order (V the scope's terms)
// when r is sqrt(limit·V): 2,048 suits vocabularies of a few hundred
// thousand terms.
const smallRange = 2048

// rangeSize counts the terms of scope in prefix's range, up to smallRange+1.
func (s *Store) rangeSize(ctx context.Context, orgID, scope, prefix string) (int, error) {
	if prefix == "" {
		return smallRange + 1, nil
	}
	rng, rargs := prefixRange("term", prefix)
	var size int
	err := s.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM knowledge_vocab WHERE org_id = ? AND scope = ?`+
		rng+` LIMIT ?)`, append(append([]any{orgID, scope}, rargs...), smallRange+1)...).Scan(&size)
	return size, err
}

// topLive returns the n terms of scope that start with prefix with the
// most refs of live memories, most first, and whether there are no more:
// from the range when it is small, else from the first walkRows terms in
// count order when n+1 of them start with prefix (then they are exactly
// the top), else from the range after all. A large range whose terms all
// have low counts (a letter the frequent words do not start with, and
// many phrases that do) would have the walk read most of the vocabulary.
func (s *Store) topLive(ctx context.Context, orgID, scope, prefix string, n int, small bool) ([]memory.TermCount, bool, error) {
	rng, rargs := prefixRange("term", prefix)
	if !small {
		walk := `SELECT term, live FROM (SELECT term, live FROM knowledge_vocab INDEXED BY knowledge_vocab_rank
			WHERE org_id = ? AND scope = ? AND live > 0 ORDER BY live DESC, term LIMIT ?) WHERE 1` + rng +
			` ORDER BY live DESC, term LIMIT ?`
		out, err := s.termCounts(ctx, walk, append(append([]any{orgID, scope, walkRows}, rargs...), n+1)...)
		if err != nil || len(out) > n {
			return cut(out, n), false, err
		}
	}
	// The range through the primary key, sorted; the unary + keeps the
	// planner off the rank index, which it otherwise prefers for the ORDER
	// BY and walks whole when the range holds few live terms (300 ms for a
	// first letter no term starts with, at 130,000 terms).
	out, err := s.termCounts(ctx, `SELECT term, live FROM knowledge_vocab WHERE org_id = ? AND scope = ?`+rng+
		` AND +live > 0 ORDER BY +live DESC, term LIMIT ?`, append(append([]any{orgID, scope}, rargs...), n+1)...)
	return cut(out, n), len(out) <= n, err
}

// walkRows is the most terms topLive reads in count order before it reads
// the prefix's range instead.
const walkRows = 4096

func cut(ts []memory.TermCount, n int) []memory.TermCount {
	if len(ts) > n {
		return ts[:n]
	}
	return ts
}

// topTerms ranks the terms of the sum of the live counters of scopes (one
// or two). One scope is read in count order, or its range when small. Two
// small ranges are summed whole. Two scopes of which one has a large range
// go through Fagin's threshold algorithm: the top n of each scope are
// candidates, summed exactly; a term in neither top n has at most the sum
// of the two n-th counts, so once the limit-th candidate exceeds that the
// answer is exact. After two rounds (n = 4·limit, 16·limit) without that,
// the ranges are summed whole.
func (s *Store) topTerms(ctx context.Context, orgID string, scopes []string, prefix string, limit int) ([]memory.TermCount, error) {
	small := true
	for _, sc := range scopes {
		size, err := s.rangeSize(ctx, orgID, sc, prefix)
		if err != nil {
			return nil, err
		}
		small = small && size <= smallRange
	}
	if len(scopes) == 1 {
		out, _, err := s.topLive(ctx, orgID, scopes[0], prefix, limit, small)
		return out, err
	}
	sum := func() ([]memory.TermCount, error) {
		rng, rargs := prefixRange("term", prefix)
		args := append(append([]any{orgID, scopes[0], scopes[1]}, rargs...), limit)
		return s.termCounts(ctx, `SELECT term, SUM(live) AS n FROM knowledge_vocab WHERE org_id = ? AND scope IN (?, ?)`+
			rng+` GROUP BY term HAVING n > 0 ORDER BY n DESC, term LIMIT ?`, args...)
	}
	if small {
		return sum()
	}
	for n := 4 * limit; n <= 16*limit; n *= 4 {
		bound, done := 0, true
		cands := map[string]bool{}
		for _, sc := range scopes {
			top, all, err := s.topLive(ctx, orgID, sc, prefix, n, false)
			if err != nil {
				return nil, err
			}
			for _, tc := range top {
				cands[tc.Term] = true
			}
			if !all {
				bound += top[len(top)-1].Count
				done = false
			}
		}
		if len(cands) == 0 {
			return nil, nil
		}
		args := []any{orgID, scopes[0], scopes[1]}
		for t := range cands {
			args = append(args, t)
		}
		out, err := s.termCounts(ctx, `SELECT term, SUM(live) AS n FROM knowledge_vocab WHERE org_id = ? AND scope IN (?, ?)
			AND term IN (`+placeholders(len(cands))+`) GROUP BY term ORDER BY n DESC, term`, args...)
		if err != nil {
			return nil, err
		}
		if done || (len(out) >= limit && out[limit-1].Count > bound) {
			return cut(out, limit), nil
		}
	}
	return sum()
}

// ListKnowledge implements memory.TermIndex: a forward scan of the
// primary key (org, kind, name, ...) from the cursor, counting the visible
// refs of each name and keeping the bodies of its newest MaxListMerge
// entities, until the name after the page's last.
func (s *Store) ListKnowledge(ctx context.Context, q memory.KnowledgeListQuery) (memory.KnowledgePage, error) {
	q, err := q.Normalize()
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	after, _ := memory.DecodeKnowledgeCursor(q.Cursor)
	cond, args := where(q.Filter)
	// One lower bound, so that SQLite starts the scan there: after the
	// cursor's name, or at the prefix, whichever is further.
	rng, rargs := " AND name > ?", []any{after}
	if q.Prefix != "" {
		if after < q.Prefix {
			rng, rargs = " AND name >= ?", []any{q.Prefix}
		}
		rng += " AND name < ?"
		rargs = append(rargs, q.Prefix+"\xff")
	}
	body := "NULL"
	if q.Kind == memory.KnowledgeEntity {
		body = "body"
	}
	rows, err := s.query(ctx, `SELECT name, memory_id, ordinal, created_at, org_id, `+body+` FROM knowledge_refs
		WHERE `+cond+` AND ref_kind = ?`+rng+` ORDER BY name, memory_id, ordinal`,
		append(append(args, string(q.Kind)), rargs...)...)
	if err != nil {
		return memory.KnowledgePage{}, termsOp("list knowledge", err)
	}
	defer rows.Close()
	var page memory.KnowledgePage
	var cur *nameFold
	finish := func() error {
		it, err := cur.item()
		if err != nil {
			return fmt.Errorf("sqlite: list knowledge: %w", err)
		}
		page.Items = append(page.Items, it)
		return nil
	}
	for rows.Next() {
		var r newestRef
		var name, org string
		if err := rows.Scan(&name, &r.memoryID, &r.ordinal, &r.at, &org, &r.body); err != nil {
			return page, termsOp("list knowledge", err)
		}
		if org != q.Filter.OrgID {
			continue
		}
		if cur == nil || name != cur.b.Name() {
			if cur != nil {
				if err := finish(); err != nil {
					return page, err
				}
			}
			if len(page.Items) == q.Limit {
				page.Next = memory.EncodeKnowledgeCursor(page.Items[len(page.Items)-1].Name)
				return page, nil
			}
			cur = &nameFold{b: termkit.NewKnowledgeBuilder(q.Kind, name)}
		}
		cur.add(r)
	}
	if err := rows.Err(); err != nil {
		return page, termsOp("list knowledge", err)
	}
	if cur != nil {
		if err := finish(); err != nil {
			return page, err
		}
	}
	return page, nil
}

// newestRef is a listed ref, its body still encoded.
type newestRef struct {
	memoryID string
	ordinal  int
	at       int64
	body     []byte
}

// nameFold counts the refs of one name and keeps the encoded bodies of its
// newest MaxListMerge, so that only those are decoded.
type nameFold struct {
	b      *termkit.KnowledgeBuilder
	newest []newestRef
}

func (f *nameFold) add(r newestRef) {
	f.b.Count(r.memoryID, r.at)
	if r.body == nil {
		return
	}
	f.newest = append(f.newest, r)
	if len(f.newest) >= 4*memory.MaxListMerge {
		f.trim()
	}
}

func (f *nameFold) trim() {
	sort.Slice(f.newest, func(i, j int) bool {
		x, y := f.newest[i], f.newest[j]
		switch {
		case x.at != y.at:
			return x.at > y.at
		case x.memoryID != y.memoryID:
			return x.memoryID > y.memoryID
		}
		return x.ordinal > y.ordinal
	})
	if len(f.newest) > memory.MaxListMerge {
		f.newest = f.newest[:memory.MaxListMerge]
	}
}

func (f *nameFold) item() (memory.KnowledgeItem, error) {
	f.trim()
	for _, n := range f.newest {
		var r memory.SemanticRef
		if err := json.Unmarshal(n.body, &r); err != nil {
			return memory.KnowledgeItem{}, fmt.Errorf("decode a ref of %q: %w", f.b.Name(), err)
		}
		f.b.Merge(r, n.at)
	}
	return f.b.Item(), nil
}

// Vocabulary implements memory.TermIndex: the "*" counters hold every
// term of the org.
func (s *Store) Vocabulary(ctx context.Context, orgID, after string, limit int) ([]string, string, error) {
	if orgID == "" {
		return nil, "", memory.Errorf(memory.EINTERNAL, "term index: vocabulary without org")
	}
	limit, err := memory.VocabularyLimit(limit)
	if err != nil {
		return nil, "", err
	}
	rows, err := s.query(ctx, `SELECT term FROM knowledge_vocab WHERE org_id = ? AND scope = ? AND term > ?
		ORDER BY term LIMIT ?`, orgID, termkit.ScopeAll, after, limit+1)
	if err != nil {
		return nil, "", termsOp("vocabulary", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return nil, "", termsOp("vocabulary", err)
		}
		out = append(out, t)
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1]
	}
	return out, next, termsOp("vocabulary", rows.Err())
}
