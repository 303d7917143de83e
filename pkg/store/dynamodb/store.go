package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Store is the DynamoDB Store. It is safe for concurrent use.
type Store struct {
	c     *dynamodb.Client
	table string
	// EphemeralTTL is how long ephemeral memories live before DynamoDB
	// expires them (default 30 days; 0 disables).
	EphemeralTTL time.Duration
}

var (
	_ memory.Store        = (*Store)(nil)
	_ memory.HistoryStore = (*Store)(nil)
)

// New returns a Store over table.
func New(c *dynamodb.Client, table string) *Store {
	return &Store{c: c, table: table, EphemeralTTL: 30 * 24 * time.Hour}
}

// Client returns the DynamoDB client.
func (s *Store) Client() *dynamodb.Client { return s.c }

// Table returns the table name.
func (s *Store) Table() string { return s.table }

const (
	skMemory = "MEMORY"
	skDedup  = "DEDUP"
	skRecord = "RECORD"
	skKey    = "KEY"
	// maxTxMemories keeps a transaction within DynamoDB's 100 actions:
	// each memory writes itself, its dedup claim and its first revision.
	maxTxMemories = 33
)

func memPK(org, id string) string    { return "ORG#" + org + "#MEM#" + id }
func dedupPK(org, key string) string { return "ORG#" + org + "#DEDUP#" + key }
func sortKey(created int64, id string) string {
	return fmt.Sprintf("%016d#%s", created, id)
}

func str(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func num(v int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(v, 10)}
}
func boolean(v bool) types.AttributeValue {
	return &types.AttributeValueMemberBOOL{Value: v}
}

func key(pk, sk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{"PK": str(pk), "SK": str(sk)}
}

// item renders a memory as its table item.
func (s *Store) item(m *memory.Memory) (map[string]types.AttributeValue, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: encode memory %s: %w", m.ID, err)
	}
	org, sk := "ORG#"+m.OrgID, sortKey(m.CreatedAt, m.ID)
	it := map[string]types.AttributeValue{
		"PK": str(memPK(m.OrgID, m.ID)), "SK": str(skMemory),
		"orgId": str(m.OrgID), "id": str(m.ID), "agentId": str(m.AgentID), "type": str(string(m.Type)),
		"kind": str(string(m.Kind)), "roomId": str(m.RoomID), "entityId": str(m.EntityID),
		"sessionId": str(m.SessionID), "documentId": str(m.DocumentID), "durability": str(string(m.Durability)),
		"dedupKey": str(memory.DedupKey(m)), "createdAt": num(m.CreatedAt), "archived": boolean(m.Archived),
		"version": num(m.Version), "accessCount": num(m.AccessCount), "lastAccessedAt": num(m.LastAccessedAt),
		"body": str(string(body)), "embeddingModel": str(m.EmbeddingModel), attrPending: boolean(m.Pending),
		schema.ByOrg.PartitionKey: str(org), schema.ByOrg.SortKey: str(sk),
		schema.ByType.PartitionKey: str(org + "#TYPE#" + string(m.Type)), schema.ByType.SortKey: str(sk),
	}
	if len(m.Embedding) > 0 {
		it["embedding"] = &types.AttributeValueMemberB{Value: memory.EncodeVector(m.Embedding)}
	}
	if meta := memory.MetadataPairs(m.Metadata); len(meta) > 0 {
		it["meta"] = &types.AttributeValueMemberSS{Value: meta}
	}
	for _, g := range []struct{ pk, sk, prefix, v string }{
		{schema.ByRoom.PartitionKey, schema.ByRoom.SortKey, "#ROOM#", m.RoomID},
		{schema.ByEntity.PartitionKey, schema.ByEntity.SortKey, "#ENT#", m.EntityID},
		{schema.BySession.PartitionKey, schema.BySession.SortKey, "#SES#", m.SessionID},
		{schema.ByDocument.PartitionKey, schema.ByDocument.SortKey, "#DOC#", m.DocumentID},
	} {
		if g.v != "" {
			it[g.pk], it[g.sk] = str(org+g.prefix+g.v), str(sk)
		}
	}
	setVisibility(it, m.WorldID, m.Audience())
	if m.Durability == memory.DurabilityEphemeral && s.EphemeralTTL > 0 {
		it[TTLAttribute] = num(time.UnixMilli(m.CreatedAt).Add(s.EphemeralTTL).Unix())
	}
	return it, nil
}

func attrS(it map[string]types.AttributeValue, name string) string {
	if v, ok := it[name].(*types.AttributeValueMemberS); ok {
		return v.Value
	}
	return ""
}

func attrN(it map[string]types.AttributeValue, name string) int64 {
	if v, ok := it[name].(*types.AttributeValueMemberN); ok {
		n, _ := strconv.ParseInt(v.Value, 10, 64)
		return n
	}
	return 0
}

// fromItem decodes a memory item. Its Pending flag is the item's pending
// attribute (the body's may predate a commit); callers that may meet a
// commit in progress use decode, which resolves it.
func fromItem(it map[string]types.AttributeValue) (*memory.Memory, error) {
	var m memory.Memory
	if err := json.Unmarshal([]byte(attrS(it, "body")), &m); err != nil {
		return nil, fmt.Errorf("dynamodb: decode memory %s: %w", attrS(it, "PK"), err)
	}
	m.Version, m.AccessCount, m.LastAccessedAt = attrN(it, "version"), attrN(it, "accessCount"), attrN(it, "lastAccessedAt")
	m.EmbeddingModel = attrS(it, "embeddingModel")
	b, _ := it[attrPending].(*types.AttributeValueMemberBOOL)
	m.Pending = b != nil && b.Value
	if b, ok := it["embedding"].(*types.AttributeValueMemberB); ok {
		m.Embedding = memory.DecodeVector(b.Value)
	}
	return &m, nil
}

// Create implements memory.Store. Memories whose dedup claim exists already
// are reported as duplicates; the rest are written in transactions of up to
// 33 memories, each memory together with its claim and first revision. A claim taken by a
// concurrent writer between the check and the write cancels the
// transaction, which is then retried without that memory. If a later
// transaction fails for another reason, the earlier ones are undone, so the
// call is all or nothing.
func (s *Store) Create(ctx context.Context, ms []*memory.Memory) ([]memory.CreateResult, error) {
	out := make([]memory.CreateResult, len(ms))
	pending := make([]int, 0, len(ms))
	for i := range ms {
		pending = append(pending, i)
	}
	var written []*memory.Memory
	undo := func(cause error) error {
		for _, m := range written {
			if err := s.deleteMemory(ctx, m.OrgID, m.ID, memory.DedupKey(m)); err != nil && !memory.IsNotFound(err) {
				return fmt.Errorf("%w (and undoing an earlier part failed: %v)", cause, err)
			}
		}
		return cause
	}
	for attempt := 0; len(pending) > 0; attempt++ {
		if attempt > 10 {
			return nil, undo(errors.New("dynamodb: create: too many concurrent conflicts"))
		}
		holders, err := s.claimHolders(ctx, ms, pending)
		if err != nil {
			return nil, undo(err)
		}
		var todo []int
		for _, i := range pending {
			if id, ok := holders[i]; ok {
				out[i] = memory.CreateResult{ID: id, Duplicate: true}
			} else {
				todo = append(todo, i)
			}
		}
		pending = pending[:0]
		for start := 0; start < len(todo); start += maxTxMemories {
			chunk := todo[start:min(len(todo), start+maxTxMemories)]
			lost, err := s.writeChunk(ctx, ms, chunk)
			if err != nil {
				return nil, undo(err)
			}
			for _, i := range chunk {
				if !lost[i] {
					out[i] = memory.CreateResult{ID: ms[i].ID}
					written = append(written, ms[i])
				}
			}
			for i := range lost {
				pending = append(pending, i) // look the holder up and report a duplicate
			}
		}
	}
	return out, nil
}

// claimHolders returns, for the memories at idx whose dedup claim exists,
// the id of the memory holding it.
func (s *Store) claimHolders(ctx context.Context, ms []*memory.Memory, idx []int) (map[int]string, error) {
	byPK := map[string][]int{}
	var keys []map[string]types.AttributeValue
	for _, i := range idx {
		pk := dedupPK(ms[i].OrgID, memory.DedupKey(ms[i]))
		if _, seen := byPK[pk]; !seen {
			keys = append(keys, key(pk, skDedup))
		}
		byPK[pk] = append(byPK[pk], i)
	}
	items, err := s.batchGet(ctx, keys, true)
	if err != nil {
		return nil, err
	}
	out := map[int]string{}
	for _, it := range items {
		for _, i := range byPK[attrS(it, "PK")] {
			out[i] = attrS(it, "memoryId")
		}
	}
	return out, nil
}

// writeChunk writes memories and their claims in one transaction. It
// returns the memories whose claim was taken concurrently (nothing of the
// chunk is written then; the caller retries without them).
func (s *Store) writeChunk(ctx context.Context, ms []*memory.Memory, chunk []int) (map[int]bool, error) {
	var items []types.TransactWriteItem
	for _, i := range chunk {
		it, err := s.item(ms[i])
		if err != nil {
			return nil, err
		}
		items = append(items,
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: it,
				ConditionExpression: aws.String("attribute_not_exists(PK)")}},
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table),
				Item: map[string]types.AttributeValue{
					"PK": str(dedupPK(ms[i].OrgID, memory.DedupKey(ms[i]))), "SK": str(skDedup),
					"orgId": str(ms[i].OrgID), "memoryId": str(ms[i].ID),
				},
				ConditionExpression: aws.String("attribute_not_exists(PK)")}},
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table), Item: s.revisionItem(ms[i], it, memory.OpCreate)}})
	}
	_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		lost := map[int]bool{}
		for j, r := range tc.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" {
				switch j % 3 {
				case 0:
					return nil, memory.Errorf(memory.ECONFLICT, "memory %q already exists", ms[chunk[j/3]].ID)
				case 1:
					lost[chunk[j/3]] = true
				}
			}
		}
		if len(lost) > 0 {
			return lost, nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("dynamodb: create: %w", err)
	}
	return nil, nil
}

// batchGet reads keys, 100 at a time, retrying unprocessed keys.
func (s *Store) batchGet(ctx context.Context, keys []map[string]types.AttributeValue, consistent bool) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for start := 0; start < len(keys); start += 100 {
		req := map[string]types.KeysAndAttributes{s.table: {Keys: keys[start:min(len(keys), start+100)], ConsistentRead: aws.Bool(consistent)}}
		for attempt := 0; len(req) > 0; attempt++ {
			if attempt > 0 {
				if err := sleep(ctx, attempt); err != nil {
					return nil, err
				}
			}
			res, err := s.c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: req})
			if err != nil {
				return nil, fmt.Errorf("dynamodb: batch get: %w", err)
			}
			out = append(out, res.Responses[s.table]...)
			req = res.UnprocessedKeys
		}
	}
	return out, nil
}

// sleep backs off before retry attempt n (exponential, capped at 2 s).
func sleep(ctx context.Context, n int) error {
	d := time.Duration(min(2000, 25<<min(n, 7))) * time.Millisecond
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// Get implements memory.Store.
func (s *Store) Get(ctx context.Context, orgID, id string) (*memory.Memory, error) {
	items, err := s.batchGet(ctx, withAccessKeys(orgID, []string{id}), true)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: get: %w", err)
	}
	mems, acc := splitAccess(items)
	if len(mems) == 0 || attrS(mems[0], "orgId") != orgID {
		return nil, memory.ErrNotFound(id)
	}
	ms, err := s.decodeWith(ctx, orgID, mems[:1], acc)
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// GetMany implements memory.Store.
func (s *Store) GetMany(ctx context.Context, orgID string, ids []string) (map[string]*memory.Memory, error) {
	seen := map[string]bool{}
	var uniq []string
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			uniq = append(uniq, id)
		}
	}
	items, err := s.batchGet(ctx, withAccessKeys(orgID, uniq), false)
	if err != nil {
		return nil, err
	}
	mems, acc := splitAccess(items)
	mine := mems[:0]
	for _, it := range mems {
		if attrS(it, "orgId") == orgID {
			mine = append(mine, it)
		}
	}
	ms, err := s.decodeWith(ctx, orgID, mine, acc)
	if err != nil {
		return nil, err
	}
	out := make(map[string]*memory.Memory, len(ms))
	for _, m := range ms {
		out[m.ID] = m
	}
	return out, nil
}

// Update implements memory.Store: one transaction that replaces the memory
// if its version is unchanged and, when the content moved to another dedup
// key, releases the old claim and takes the new one.
func (s *Store) Update(ctx context.Context, m *memory.Memory) error {
	cur, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(memPK(m.OrgID, m.ID), skMemory), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("orgId, dedupKey, version, accessCount, lastAccessedAt")})
	if err != nil {
		return fmt.Errorf("dynamodb: update: %w", err)
	}
	if cur.Item == nil || attrS(cur.Item, "orgId") != m.OrgID {
		return memory.ErrNotFound(m.ID)
	}
	next := *m
	next.Version++
	// The item keeps its own access counters: m's are merged with the
	// access item's (access.go), which keeps counting on its own.
	next.AccessCount, next.LastAccessedAt = attrN(cur.Item, "accessCount"), attrN(cur.Item, "lastAccessedAt")
	it, err := s.item(&next)
	if err != nil {
		return err
	}
	oldKey, newKey := attrS(cur.Item, "dedupKey"), memory.DedupKey(m)
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(s.table), Item: it,
		ConditionExpression:       aws.String("attribute_exists(PK) AND version = :v"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(m.Version)}}}}
	if oldKey != newKey {
		items = append(items,
			types.TransactWriteItem{Delete: &types.Delete{TableName: aws.String(s.table), Key: key(dedupPK(m.OrgID, oldKey), skDedup),
				ConditionExpression:       aws.String("memoryId = :id"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(m.ID)}}},
			types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table),
				Item: map[string]types.AttributeValue{"PK": str(dedupPK(m.OrgID, newKey)), "SK": str(skDedup),
					"orgId": str(m.OrgID), "memoryId": str(m.ID)},
				ConditionExpression: aws.String("attribute_not_exists(PK)")}})
	}
	// The revision goes last: the cancellation reasons above keep their
	// positions.
	items = append(items, types.TransactWriteItem{Put: &types.Put{TableName: aws.String(s.table),
		Item: s.revisionItem(&next, it, memory.OpUpdate)}})
	_, err = s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		reasons := tc.CancellationReasons
		if len(reasons) > 0 && aws.ToString(reasons[0].Code) == "ConditionalCheckFailed" {
			if _, gerr := s.Get(ctx, m.OrgID, m.ID); memory.IsNotFound(gerr) {
				return gerr
			}
			return memory.Errorf(memory.ECONFLICT, "memory %q was changed concurrently (expected version %d)", m.ID, m.Version)
		}
		if len(reasons) > 1 && aws.ToString(reasons[1].Code) == "ConditionalCheckFailed" {
			return memory.Errorf(memory.ECONFLICT, "memory %q was changed concurrently", m.ID)
		}
		if len(reasons) > 2 && aws.ToString(reasons[2].Code) == "ConditionalCheckFailed" {
			holder, herr := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
				Key: key(dedupPK(m.OrgID, newKey), skDedup), ConsistentRead: aws.Bool(true)})
			if herr == nil && holder.Item != nil {
				return &memory.DuplicateError{ExistingID: attrS(holder.Item, "memoryId")}
			}
			return memory.Errorf(memory.ECONFLICT, "memory %q: the new content is claimed concurrently", m.ID)
		}
		if isTransactionConflict(reasons) {
			return memory.Errorf(memory.ECONFLICT, "memory %q was changed concurrently", m.ID)
		}
	}
	if err != nil {
		return fmt.Errorf("dynamodb: update: %w", err)
	}
	m.Version = next.Version
	if m.Change != nil && m.Change.Op == memory.OpRedact {
		// Right after the version: the earlier ones hold what was redacted.
		return s.deleteHistoryBefore(ctx, m.OrgID, m.ID, next.Version)
	}
	return nil
}

func isTransactionConflict(rs []types.CancellationReason) bool {
	for _, r := range rs {
		if aws.ToString(r.Code) == "TransactionConflict" {
			return true
		}
	}
	return false
}

// Delete implements memory.Store.
func (s *Store) Delete(ctx context.Context, orgID, id string) error {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(memPK(orgID, id), skMemory), ConsistentRead: aws.Bool(true),
		ProjectionExpression: aws.String("orgId, dedupKey")})
	if err != nil {
		return fmt.Errorf("dynamodb: delete: %w", err)
	}
	if res.Item == nil || attrS(res.Item, "orgId") != orgID {
		return memory.ErrNotFound(id)
	}
	return s.deleteMemory(ctx, orgID, id, attrS(res.Item, "dedupKey"))
}

// deleteMemory removes a memory with its claim, in one transaction, then
// its relations.
func (s *Store) deleteMemory(ctx context.Context, orgID, id, dedupKey string) error {
	if err := s.deleteMemoryItems(ctx, orgID, id, dedupKey); err != nil {
		return err
	}
	if err := s.deleteHistory(ctx, orgID, id); err != nil {
		return err
	}
	return s.deleteRelations(ctx, orgID, id)
}

// deleteMemoryItems removes a memory, its claim and its access item in one
// transaction.
func (s *Store) deleteMemoryItems(ctx context.Context, orgID, id, dedupKey string) error {
	_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{Delete: &types.Delete{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skMemory),
			ConditionExpression: aws.String("attribute_exists(PK)")}},
		{Delete: &types.Delete{TableName: aws.String(s.table), Key: key(dedupPK(orgID, dedupKey), skDedup),
			ConditionExpression:       aws.String("attribute_not_exists(PK) OR memoryId = :id"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":id": str(id)}}},
		{Delete: &types.Delete{TableName: aws.String(s.table), Key: accessKey(orgID, id)}},
	}})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) && len(tc.CancellationReasons) > 0 && aws.ToString(tc.CancellationReasons[0].Code) == "ConditionalCheckFailed" {
		return memory.ErrNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("dynamodb: delete: %w", err)
	}
	return nil
}

// query is a planned list query: the index, its partition, and the rest of
// the filter as a filter expression.
type query struct {
	idx    schema.Index // the index queried
	pk     string
	filter string
	names  map[string]string
	values map[string]types.AttributeValue
}

// plan picks the most selective index for f and renders the remaining
// conditions. The org is in every partition key.
func plan(f memory.Filter) query {
	org := "ORG#" + f.OrgID
	q := query{names: map[string]string{}, values: map[string]types.AttributeValue{}}
	used := ""
	switch {
	case f.DocumentID != "":
		q.idx, q.pk, used = schema.ByDocument, org+"#DOC#"+f.DocumentID, "document"
	case f.SessionID != "":
		q.idx, q.pk, used = schema.BySession, org+"#SES#"+f.SessionID, "session"
	case f.EntityID != "":
		q.idx, q.pk, used = schema.ByEntity, org+"#ENT#"+f.EntityID, "entity"
	case f.RoomID != "":
		q.idx, q.pk, used = schema.ByRoom, org+"#ROOM#"+f.RoomID, "room"
	case len(f.Types) == 1:
		q.idx, q.pk, used = schema.ByType, org+"#TYPE#"+string(f.Types[0]), "type"
	default:
		q.idx, q.pk = schema.ByOrg, org
	}
	var conds []string
	n := 0
	eq := func(attr, v string) {
		n++
		name, val := fmt.Sprintf("#f%d", n), fmt.Sprintf(":f%d", n)
		q.names[name], q.values[val] = attr, str(v)
		conds = append(conds, name+" = "+val)
	}
	// The org is in the key already; checking the attribute too costs nothing.
	eq("orgId", f.OrgID)
	if f.Viewer != "" {
		q.names["#ag"] = "agentId"
		q.values[":empty"], q.values[":viewer"] = str(""), str(f.Viewer)
		conds = append(conds, "(#ag = :empty OR #ag = :viewer)")
	}
	switch f.AgentID {
	case "":
	case memory.OrgScope:
		eq("agentId", "")
	default:
		eq("agentId", f.AgentID)
	}
	in := func(attr string, vs []string) {
		var ph []string
		for _, v := range vs {
			n++
			p := fmt.Sprintf(":f%d", n)
			q.values[p] = str(v)
			ph = append(ph, p)
		}
		n++
		name := fmt.Sprintf("#f%d", n)
		q.names[name] = attr
		conds = append(conds, name+" IN ("+strings.Join(ph, ", ")+")")
	}
	if len(f.Types) > 0 && used != "type" {
		var vs []string
		for _, t := range f.Types {
			vs = append(vs, string(t))
		}
		in("type", vs)
	}
	if len(f.Kinds) > 0 {
		var vs []string
		for _, k := range f.Kinds {
			vs = append(vs, string(k))
		}
		in("kind", vs)
	}
	if f.Durability != "" {
		eq("durability", string(f.Durability))
	}
	if f.RoomID != "" && used != "room" {
		eq("roomId", f.RoomID)
	}
	if f.WorldID != "" {
		eq(attrWorld, f.WorldID)
	}
	if f.EntityID != "" && used != "entity" {
		eq("entityId", f.EntityID)
	}
	if f.SessionID != "" && used != "session" {
		eq("sessionId", f.SessionID)
	}
	if len(f.Metadata) > 0 {
		q.names["#meta"] = "meta"
		for _, k := range f.Metadata.Keys() {
			var any []string
			for _, p := range f.Metadata.Pairs(k) {
				n++
				v := fmt.Sprintf(":f%d", n)
				q.values[v] = str(p)
				any = append(any, "contains(#meta, "+v+")")
			}
			conds = append(conds, "("+strings.Join(any, " OR ")+")")
		}
	}
	if !f.IncludeArchived {
		q.names["#arch"] = "archived"
		q.values[":false"] = boolean(false)
		conds = append(conds, "#arch = :false")
	}
	conds = append(conds, visibility(f, &q))
	q.filter = withAudience(f, strings.Join(conds, " AND "), "aud", q.names, q.values)
	return q
}

// input renders the query for a page ending before cursor (newest first);
// nil when the range is empty.
func (q query) input(table string, f memory.Filter, cursor *memory.Cursor, asc bool, limit int32, count bool) *dynamodb.QueryInput {
	names := map[string]string{"#pk": q.idx.PartitionKey}
	values := map[string]types.AttributeValue{":pk": str(q.pk)}
	for k, v := range q.names {
		names[k] = v
	}
	for k, v := range q.values {
		values[k] = v
	}
	cond := "#pk = :pk"
	lo, hi := "", ""
	if f.Start != 0 {
		lo = sortKey(f.Start, "")
	}
	if f.End != 0 {
		hi = sortKey(f.End, "")
	}
	if cursor != nil && asc {
		if c := above(sortKey(cursor.CreatedAt, cursor.ID)); c > lo {
			lo = c
		}
	} else if cursor != nil {
		if c := sortKey(cursor.CreatedAt, cursor.ID); hi == "" || c < hi {
			hi = c
		}
	}
	if lo != "" || hi != "" {
		names["#sk"] = q.idx.SortKey
	}
	switch {
	case lo != "" && hi != "" && below(hi) < lo:
		return nil // an empty range
	case lo != "" && hi != "":
		// BETWEEN is inclusive: end it just below hi.
		cond += " AND #sk BETWEEN :lo AND :hi"
		values[":lo"], values[":hi"] = str(lo), str(below(hi))
	case lo != "":
		cond += " AND #sk >= :lo"
		values[":lo"] = str(lo)
	case hi != "":
		cond += " AND #sk < :hi"
		values[":hi"] = str(hi)
	}
	in := &dynamodb.QueryInput{
		TableName: aws.String(table), IndexName: aws.String(q.idx.Name),
		KeyConditionExpression: aws.String(cond), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ScanIndexForward: aws.Bool(asc),
	}
	if q.filter != "" {
		in.FilterExpression = aws.String(q.filter)
	}
	if limit > 0 {
		in.Limit = aws.Int32(limit)
	}
	if count {
		in.Select = types.SelectCount
	}
	return in
}

// below returns the greatest key below k among keys of printable ASCII
// (sort keys are digits, '#' and the id): k with its last byte decremented
// and the highest code point appended. Any key x < k satisfies x <= below(k).
func below(k string) string {
	if k == "" {
		return k
	}
	return k[:len(k)-1] + string(k[len(k)-1]-1) + "\U0010FFFF"
}

// above returns the least key above k among keys of printable ASCII: k
// with a space appended, which sorts below every printable character. Any
// key x > k satisfies x >= above(k).
func above(k string) string { return k + " " }

// List implements memory.Store.
func (s *Store) List(ctx context.Context, lq memory.ListQuery) (memory.Page, error) {
	f := lq.Filter
	if f.OrgID == "" {
		return memory.Page{}, errors.New("dynamodb: list without org")
	}
	q := plan(f)
	in := q.input(s.table, f, lq.Cursor, lq.Ascending, int32(min(maxPage, lq.Limit*2+10)), false)
	var page memory.Page
	for in != nil {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return memory.Page{}, fmt.Errorf("dynamodb: list: %w", err)
		}
		its, err := s.resolve(ctx, f.OrgID, keepAudiences(f, res.Items), f.Pending)
		if err != nil {
			return memory.Page{}, err
		}
		ms, err := s.decode(ctx, f.OrgID, its)
		if err != nil {
			return memory.Page{}, err
		}
		page.Memories = append(page.Memories, ms...)
		if len(page.Memories) > lq.Limit || res.LastEvaluatedKey == nil {
			break
		}
		nextPage(in, res)
	}
	if len(page.Memories) > lq.Limit {
		page.Memories = page.Memories[:lq.Limit]
		last := page.Memories[lq.Limit-1]
		page.Next = &memory.Cursor{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	return page, nil
}

// maxPage is the most items a query reads in one call (DynamoDB stops
// at 1 MB in any case).
const maxPage = 1000

// nextPage readies in for the page after res: it starts after res's last
// key and reads twice as many items, up to maxPage. DynamoDB applies a
// filter expression after the read, so a selective filter leaves a page
// short of what was asked; growing pages keep the round trips of a sparse
// match logarithmic in the partition's size, where a fixed page made them
// linear (a speaker check through a subject that has only facts read 12
// items a call). The first page stays small, sized to what was asked, so
// a filter that matches most items reads little more than it returns.
func nextPage(in *dynamodb.QueryInput, res *dynamodb.QueryOutput) {
	in.ExclusiveStartKey = res.LastEvaluatedKey
	if in.Limit != nil && *in.Limit < maxPage {
		in.Limit = aws.Int32(min(maxPage, 2**in.Limit))
	}
}

// Count implements memory.Store.
func (s *Store) Count(ctx context.Context, f memory.Filter) (int, error) {
	if f.OrgID == "" {
		return 0, errors.New("dynamodb: count without org")
	}
	// The items are read projected rather than counted by DynamoDB (the
	// same read capacity) so that those of a commit in progress resolve.
	in := plan(f).input(s.table, f, nil, false, 0, false)
	if in != nil {
		in.ProjectionExpression = aws.String("documentId, #pend, #tok, #role, #paud")
		in.ExpressionAttributeNames["#role"], in.ExpressionAttributeNames["#paud"] = attrRole, attrAudience
	}
	n := 0
	for in != nil {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return 0, fmt.Errorf("dynamodb: count: %w", err)
		}
		its, err := s.resolve(ctx, f.OrgID, keepAudiences(f, res.Items), f.Pending)
		if err != nil {
			return 0, fmt.Errorf("dynamodb: count: %w", err)
		}
		n += len(its)
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return n, nil
}

// DeleteWhere implements memory.Store: the matching memories are found by
// a query and deleted with their claims, eight at a time.
func (s *Store) DeleteWhere(ctx context.Context, f memory.Filter) ([]string, error) {
	if f.OrgID == "" {
		return nil, errors.New("dynamodb: delete without org")
	}
	in := plan(f).input(s.table, f, nil, false, 0, false)
	type victim struct{ id, key string }
	var victims []victim
	if in != nil {
		in.ProjectionExpression = aws.String("id, dedupKey, orgId, documentId, #pend, #tok, #role, #paud")
		in.ExpressionAttributeNames["#role"], in.ExpressionAttributeNames["#paud"] = attrRole, attrAudience
	}
	for in != nil {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: delete: %w", err)
		}
		its, err := s.resolve(ctx, f.OrgID, keepAudiences(f, res.Items), f.Pending)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: delete: %w", err)
		}
		for _, it := range its {
			victims = append(victims, victim{attrS(it, "id"), attrS(it, "dedupKey")})
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	var (
		mu      sync.Mutex
		deleted []string
		firstEr error
		wg      sync.WaitGroup
		sem     = make(chan struct{}, 8)
	)
	for _, v := range victims {
		wg.Add(1)
		sem <- struct{}{}
		go func(v victim) {
			defer wg.Done()
			defer func() { <-sem }()
			err := s.deleteMemory(ctx, f.OrgID, v.id, v.key)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				deleted = append(deleted, v.id)
			case memory.IsNotFound(err): // deleted concurrently
			case firstEr == nil:
				firstEr = err
			}
		}(v)
	}
	wg.Wait()
	sort.Strings(deleted)
	return deleted, firstEr
}

// Scan implements memory.Store.
func (s *Store) Scan(ctx context.Context, fn func(*memory.Memory) error) error {
	in := &dynamodb.ScanInput{TableName: aws.String(s.table), FilterExpression: aws.String("SK = :mem"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":mem": str(skMemory)}}
	for {
		res, err := s.c.Scan(ctx, in)
		if err != nil {
			return fmt.Errorf("dynamodb: scan: %w", err)
		}
		byOrg := map[string][]map[string]types.AttributeValue{}
		for _, it := range res.Items {
			if attrS(it, attrToken) != "" {
				byOrg[attrS(it, "orgId")] = append(byOrg[attrS(it, "orgId")], it)
			}
		}
		marks := map[string]map[string]string{}
		for org, its := range byOrg {
			if marks[org], err = s.markers(ctx, org, its); err != nil {
				return err
			}
		}
		acc, err := s.accesses(ctx, res.Items)
		if err != nil {
			return fmt.Errorf("dynamodb: scan: %w", err)
		}
		for _, it := range res.Items {
			m, err := fromItem(addAccess(it, acc))
			if err != nil {
				return err
			}
			m.Pending = staged(it, marks[m.OrgID])
			if err := fn(m); err != nil {
				return err
			}
		}
		if res.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// Orgs lists every org that has memories (memory.OrgLister). It scans the
// table's memory items, projecting only the org: fine for a daily job,
// and the place for an org registry item if tables grow very large.
func (s *Store) Orgs(ctx context.Context) ([]string, error) {
	in := &dynamodb.ScanInput{TableName: aws.String(s.table), FilterExpression: aws.String("SK = :mem"),
		ProjectionExpression:      aws.String("orgId"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":mem": str(skMemory)}}
	seen := map[string]bool{}
	for {
		res, err := s.c.Scan(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: orgs: %w", err)
		}
		for _, it := range res.Items {
			seen[attrS(it, "orgId")] = true
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	out := make([]string, 0, len(seen))
	for o := range seen {
		out = append(out, o)
	}
	sort.Strings(out)
	return out, nil
}
