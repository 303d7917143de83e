package dynamodb

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/memory/termkit"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// The knowledge index (memory.TermIndex) is kept in the same table, every
// key starting with the org. "\x01" separates the parts of a sort key that
// holds a term, a property value or a name: it sorts below every character
// a term may hold (IndexableTerm excludes control characters), so that sort
// keys order by term bytewise, as SQLite does.
//
// In the memory's item collection (ORG#<org>#MEM#<id>):
//
//	KNOW                   status: state, gen (the current generation),
//	                       prev and counted (a vocabulary move under way), ver;
//	                       GSI1 (byOrg) ORG#<org>#KPENDING / <id> while pending
//	KGEN#<gen>             a generation's header: attrs, extractor, refs
//	KREF#<gen>#<ordinal>   a ref (JSON)
//	KCNT#<from>#<to>#<n>   a vocabulary chunk applied (idempotence marker)
//
// Per org, in partitions of their own:
//
//	ORG#<org>#KTERM#<term>     <createdAt>\x01<id>\x01<ordinal>\x01<role>\x01<gen>   a term posting
//	ORG#<org>#KPROP#<name>     <value>\x01<createdAt>\x01<id>\x01<ordinal>\x01<gen>  a property posting
//	ORG#<org>#KLIST#<kind>     <name>\x01<createdAt>\x01<id>\x01<ordinal>\x01<gen>   a listed name
//	ORG#<org>#KVOCAB#<scope>   <term>                                               counters: live, archived
//
// Postings carry the attributes of their memory (the names of the memory
// items), so a query filters them with a filter expression; the posting
// partitions are per term, name or kind, so that writes spread.
//
// Atomic replacement beyond DynamoDB's 100-item transactions: a Put writes
// the new refs and postings under a new generation id, then flips the
// status's gen to it in one transaction that also checks that the memory is
// still in the store (a late extraction never revives a forgotten memory),
// conditional on the status's version (concurrent writers retry). Readers
// keep only the postings of a memory's current generation (one BatchGetItem
// of the statuses per page), so they see the old refs or the new ones, never
// a mix. Then the vocabulary counters move from the previous generation's
// terms to the new one's, in transactions of up to 98 counter updates, each
// with a marker item that makes it idempotent and a check that the move is
// still under way; then the previous generation is deleted. A write that
// finds a move unfinished (a crash) finishes it first, and generations that
// never became current are deleted once older than genGrace.
const (
	skKnow          = "KNOW"
	sep             = "\x01"
	genGrace        = 15 * time.Minute
	maxCounterTx    = 98     // counter updates per transaction, beside the marker and the status check
	maxVocabRead    = 20_000 // counter items a prefix completion reads per scope
	maxCandidates   = 200    // terms counted from postings when the counters cannot answer a filter
	lookupParallel  = 8      // concurrent queries of one call
	stateDeleting   = "deleting"
	knowRetries     = 8
	countersApplied = "ConditionalCheckFailed"
)

var _ memory.TermIndex = (*Store)(nil)

func termPK(org, term string) string                   { return "ORG#" + org + "#KTERM#" + term }
func propPK(org, name string) string                   { return "ORG#" + org + "#KPROP#" + name }
func listPK(org string, k memory.KnowledgeKind) string { return "ORG#" + org + "#KLIST#" + string(k) }
func vocabPK(org, scope string) string                 { return "ORG#" + org + "#KVOCAB#" + scope }
func pendingPK(org string) string                      { return "ORG#" + org + "#KPENDING" }
func at16(ms int64) string                             { return fmt.Sprintf("%016d", ms) }
func ord5(n int) string                                { return fmt.Sprintf("%05d", n) }
func refSK(gen string, ordinal int) string             { return "KREF#" + gen + "#" + ord5(ordinal) }

func postingSK(a memory.Attrs, memoryID string, ordinal int, role, gen string) string {
	return at16(a.CreatedAt) + sep + memoryID + sep + ord5(ordinal) + sep + role + sep + gen
}

func propSK(value string, a memory.Attrs, memoryID string, ordinal int, gen string) string {
	return value + sep + at16(a.CreatedAt) + sep + memoryID + sep + ord5(ordinal) + sep + gen
}

func listSK(name string, a memory.Attrs, memoryID string, ordinal int, gen string) string {
	return name + sep + at16(a.CreatedAt) + sep + memoryID + sep + ord5(ordinal) + sep + gen
}

func attrBool(it map[string]types.AttributeValue, name string) bool {
	v, ok := it[name].(*types.AttributeValueMemberBOOL)
	return ok && v.Value
}

// knowOp wraps an error of a knowledge operation: memory errors and context
// errors pass through, throttling becomes EUNAVAILABLE.
func knowOp(op string, err error) error {
	if err == nil {
		return nil
	}
	var me *memory.Error
	if errors.As(err, &me) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var thr *types.ProvisionedThroughputExceededException
	var lim *types.RequestLimitExceeded
	var send *smithyhttp.RequestSendError
	if errors.As(err, &thr) || errors.As(err, &lim) || errors.As(err, &send) {
		return fmt.Errorf("dynamodb: %s: %w (%v)", op, memory.Errorf(memory.EUNAVAILABLE, "the knowledge index is unavailable; retry"), err)
	}
	return fmt.Errorf("dynamodb: %s: %w", op, err)
}

// withAttrs adds a's attributes to item under the memory items' names.
func withAttrs(it map[string]types.AttributeValue, a memory.Attrs) map[string]types.AttributeValue {
	it["orgId"], it["agentId"], it["type"], it["kind"] = str(a.OrgID), str(a.AgentID), str(string(a.Type)), str(string(a.Kind))
	it["roomId"], it["entityId"], it["sessionId"], it["documentId"] = str(a.RoomID), str(a.EntityID), str(a.SessionID), str(a.DocumentID)
	it["durability"], it["createdAt"], it["archived"] = str(string(a.Durability)), num(a.CreatedAt), boolean(a.Archived)
	setVisibility(it, a.WorldID, a.Audience)
	return it
}

func itemAttrs(it map[string]types.AttributeValue) memory.Attrs {
	return memory.Attrs{
		OrgID: attrS(it, "orgId"), AgentID: attrS(it, "agentId"), Type: memory.Type(attrS(it, "type")),
		Kind: memory.Kind(attrS(it, "kind")), RoomID: attrS(it, "roomId"), EntityID: attrS(it, "entityId"),
		SessionID: attrS(it, "sessionId"), DocumentID: attrS(it, "documentId"),
		Durability: memory.Durability(attrS(it, "durability")), CreatedAt: attrN(it, "createdAt"), Archived: attrBool(it, "archived"),
		WorldID: attrS(it, attrWorld), Audience: attrS(it, attrAudience),
	}
}

// filterExpr renders every condition of f on the attributes of postings,
// with the org first; the time range goes in too (the caller may also put
// it in the key condition).
func filterExpr(f memory.Filter, names map[string]string, values map[string]types.AttributeValue) string {
	n := 0
	name := func(attr string) string {
		n++
		k := fmt.Sprintf("#a%d", n)
		names[k] = attr
		return k
	}
	val := func(v types.AttributeValue) string {
		n++
		k := fmt.Sprintf(":a%d", n)
		values[k] = v
		return k
	}
	conds := []string{name("orgId") + " = " + val(str(f.OrgID))}
	eq := func(attr, v string) {
		if v != "" {
			conds = append(conds, name(attr)+" = "+val(str(v)))
		}
	}
	if f.Viewer != "" {
		ag := name("agentId")
		conds = append(conds, "("+ag+" = "+val(str(""))+" OR "+ag+" = "+val(str(f.Viewer))+")")
	}
	switch f.AgentID {
	case "":
	case memory.OrgScope:
		conds = append(conds, name("agentId")+" = "+val(str("")))
	default:
		eq("agentId", f.AgentID)
	}
	in := func(attr string, vs []string) {
		if len(vs) == 0 {
			return
		}
		var ph []string
		for _, v := range vs {
			ph = append(ph, val(str(v)))
		}
		conds = append(conds, name(attr)+" IN ("+strings.Join(ph, ", ")+")")
	}
	var ts, ks []string
	for _, t := range f.Types {
		ts = append(ts, string(t))
	}
	for _, k := range f.Kinds {
		ks = append(ks, string(k))
	}
	in("type", ts)
	in("kind", ks)
	eq("durability", string(f.Durability))
	eq("roomId", f.RoomID)
	eq(attrWorld, f.WorldID)
	eq("entityId", f.EntityID)
	eq("sessionId", f.SessionID)
	eq("documentId", f.DocumentID)
	if f.Start != 0 {
		conds = append(conds, name("createdAt")+" >= "+val(num(f.Start)))
	}
	if f.End != 0 {
		conds = append(conds, name("createdAt")+" < "+val(num(f.End)))
	}
	if !f.IncludeArchived {
		conds = append(conds, name("archived")+" = "+val(boolean(false)))
	}
	return withAudience(f, strings.Join(conds, " AND "), "aud", names, values)
}

// kstatus is a memory's KNOW item.
type kstatus struct {
	exists    bool
	state     string
	gen, prev string
	counted   bool
	extractor string
	refs      int
	updatedAt int64
	ver       int64
}

func statusOf(it map[string]types.AttributeValue) kstatus {
	return kstatus{exists: true, state: attrS(it, "state"), gen: attrS(it, "gen"), prev: attrS(it, "prev"),
		counted: attrBool(it, "counted"), extractor: attrS(it, "extractor"), refs: int(attrN(it, "refs")),
		updatedAt: attrN(it, "updatedAt"), ver: attrN(it, "ver")}
}

func (st kstatus) public(id string) memory.KnowledgeStatus {
	return memory.KnowledgeStatus{MemoryID: id, State: memory.KnowledgeState(st.state), Extractor: st.extractor,
		Refs: st.refs, UpdatedAt: st.updatedAt}
}

func (s *Store) readStatus(ctx context.Context, orgID, id string) (kstatus, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(memPK(orgID, id), skKnow), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return kstatus{}, err
	}
	if res.Item == nil || attrS(res.Item, "orgId") != orgID {
		return kstatus{}, nil
	}
	return statusOf(res.Item), nil
}

// generation is what the knowledge items of one memory hold for one gen.
type generation struct {
	id        string
	header    bool
	attrs     memory.Attrs
	extractor string
	refs      []memory.SemanticRef
}

// knowledgeItems reads the K items of a memory's collection: its
// generations (header and refs) and its vocabulary markers' sort keys.
func (s *Store) knowledgeItems(ctx context.Context, orgID, id string) (map[string]*generation, []string, error) {
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), ConsistentRead: aws.Bool(true),
		KeyConditionExpression:    aws.String("PK = :pk AND begins_with(SK, :k)"),
		ExpressionAttributeValues: map[string]types.AttributeValue{":pk": str(memPK(orgID, id)), ":k": str("K")}}
	gens := map[string]*generation{}
	var markers []string
	gen := func(g string) *generation {
		if gens[g] == nil {
			gens[g] = &generation{id: g}
		}
		return gens[g]
	}
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, nil, err
		}
		for _, it := range res.Items {
			if attrS(it, "orgId") != orgID {
				continue
			}
			sk := attrS(it, "SK")
			switch {
			case strings.HasPrefix(sk, "KGEN#"):
				g := gen(strings.TrimPrefix(sk, "KGEN#"))
				g.header, g.extractor = true, attrS(it, "extractor")
				if err := json.Unmarshal([]byte(attrS(it, "attrs")), &g.attrs); err != nil {
					return nil, nil, fmt.Errorf("decode generation %s: %w", sk, err)
				}
			case strings.HasPrefix(sk, "KREF#"):
				var r memory.SemanticRef
				if err := json.Unmarshal([]byte(attrS(it, "body")), &r); err != nil {
					return nil, nil, fmt.Errorf("decode ref %s: %w", sk, err)
				}
				g := gen(attrS(it, "gen"))
				g.refs = append(g.refs, r)
			case strings.HasPrefix(sk, "KCNT#"):
				markers = append(markers, sk)
			}
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	for _, g := range gens {
		sort.Slice(g.refs, func(i, j int) bool { return g.refs[i].Ordinal < g.refs[j].Ordinal })
	}
	return gens, markers, nil
}

// genItems renders the items of a generation: header, refs, postings,
// property postings and listed names.
func genItems(orgID, id, gen string, a memory.Attrs, extractor string, refs []memory.SemanticRef) ([]map[string]types.AttributeValue, error) {
	ab, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	pk := memPK(orgID, id)
	out := []map[string]types.AttributeValue{{
		"PK": str(pk), "SK": str("KGEN#" + gen), "orgId": str(orgID), "gen": str(gen), "attrs": str(string(ab)),
		"extractor": str(extractor), "refs": num(int64(len(refs))), "at": num(time.Now().UnixMilli()),
	}}
	for _, r := range refs {
		body, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		out = append(out, map[string]types.AttributeValue{"PK": str(pk), "SK": str(refSK(gen, r.Ordinal)),
			"orgId": str(orgID), "gen": str(gen), "body": str(string(body))})
		posting := func(pk, sk string) map[string]types.AttributeValue {
			return withAttrs(map[string]types.AttributeValue{"PK": str(pk), "SK": str(sk), "gen": str(gen),
				"memoryId": str(id), "ordinal": num(int64(r.Ordinal)), "refKind": str(string(r.Kind))}, a)
		}
		for _, t := range memory.IndexedTerms(r) {
			it := posting(termPK(orgID, t.Term), postingSK(a, id, r.Ordinal, t.Role, gen))
			it["term"], it["role"] = str(t.Term), str(t.Role)
			out = append(out, it)
		}
		for _, p := range termkit.StoredProperties(r) {
			it := posting(propPK(orgID, p.Name), propSK(p.Value, a, id, r.Ordinal, gen))
			it["name"], it["value"] = str(p.Name), str(p.Value)
			out = append(out, it)
		}
		if name := memory.KnowledgeName(r); name != "" {
			it := posting(listPK(orgID, r.Kind), listSK(name, a, id, r.Ordinal, gen))
			it["name"] = str(name)
			if r.Kind == memory.KnowledgeEntity {
				it["body"] = str(string(body))
			}
			out = append(out, it)
		}
	}
	return out, nil
}

// writeGen writes a generation, its header first.
func (s *Store) writeGen(ctx context.Context, items []map[string]types.AttributeValue) error {
	if _, err := s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: items[0]}); err != nil {
		return err
	}
	var reqs []types.WriteRequest
	for _, it := range items[1:] {
		reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: it}})
	}
	return s.batchWrite(ctx, reqs)
}

// dropGen deletes the items of a generation: postings first, then refs,
// then the header, so that a failure leaves it discoverable.
func (s *Store) dropGen(ctx context.Context, orgID, id string, g *generation) error {
	items, err := genItems(orgID, id, g.id, g.attrs, g.extractor, g.refs)
	if err != nil {
		return err
	}
	var derived, refs []types.WriteRequest
	for _, it := range items[1:] {
		req := types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(attrS(it, "PK"), attrS(it, "SK"))}}
		if attrS(it, "PK") == memPK(orgID, id) {
			refs = append(refs, req)
		} else {
			derived = append(derived, req)
		}
	}
	if !g.header { // refs without a header: a failed write's; they are all we know
		derived = nil
	}
	if err := s.batchWrite(ctx, derived); err != nil {
		return err
	}
	if err := s.batchWrite(ctx, refs); err != nil {
		return err
	}
	_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(memPK(orgID, id), "KGEN#"+g.id)})
	return err
}

// genAge is how old a generation id (a memory.NewID) is.
func genAge(gen string) time.Duration {
	if len(gen) < 12 {
		return genGrace + 1
	}
	b, err := hex.DecodeString(gen[:12])
	if err != nil {
		return genGrace + 1
	}
	var ms int64
	for _, x := range b {
		ms = ms<<8 | int64(x)
	}
	return time.Since(time.UnixMilli(ms))
}

// errRetry makes a write start over after a concurrent change.
var errRetry = errors.New("retry")

// replace writes a new generation of a memory's knowledge and makes it
// current. next decides, from the current status, what to write; it
// returns skip to leave the memory alone.
func (s *Store) replace(ctx context.Context, orgID, id string,
	next func(st kstatus) (a memory.Attrs, state, extractor string, refs []memory.SemanticRef, skip bool, err error)) error {
	for attempt := 0; attempt < knowRetries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, attempt); err != nil {
				return err
			}
		}
		st, err := s.readStatus(ctx, orgID, id)
		if err != nil {
			return err
		}
		if st.exists && !st.counted {
			if err := s.settle(ctx, orgID, id, st); err != nil && !errors.Is(err, errRetry) {
				return err
			}
			continue
		}
		a, state, extractor, refs, skip, err := next(st)
		if err != nil || skip {
			return err
		}
		gen := memory.NewID(time.Now())
		items, err := genItems(orgID, id, gen, a, extractor, refs)
		if err != nil {
			return err
		}
		g := &generation{id: gen, header: true, attrs: a, extractor: extractor, refs: refs}
		if err := s.writeGen(ctx, items); err != nil {
			if derr := s.dropGen(context.WithoutCancel(ctx), orgID, id, g); derr != nil {
				err = fmt.Errorf("%w (and removing the partial write failed: %v; the next write removes it)", err, derr)
			}
			return err
		}
		flipped := kstatus{exists: true, state: state, gen: gen, prev: st.gen, extractor: extractor, refs: len(refs),
			updatedAt: time.Now().UnixMilli(), ver: st.ver + 1}
		err = s.flip(ctx, orgID, id, st, flipped)
		if err != nil {
			if derr := s.dropGen(context.WithoutCancel(ctx), orgID, id, g); derr != nil && !errors.Is(err, errRetry) {
				err = fmt.Errorf("%w (and removing the unused generation failed: %v)", err, derr)
			}
			if errors.Is(err, errRetry) {
				continue
			}
			return err
		}
		if err := s.settle(ctx, orgID, id, flipped); err != nil && !errors.Is(err, errRetry) {
			return err
		}
		return nil
	}
	return memory.Errorf(memory.ECONFLICT, "memory %q: its knowledge was changed concurrently, again and again", id)
}

// statusItem renders a status.
func statusItem(orgID, id string, st kstatus) map[string]types.AttributeValue {
	it := map[string]types.AttributeValue{"PK": str(memPK(orgID, id)), "SK": str(skKnow), "orgId": str(orgID),
		"memoryId": str(id), "state": str(st.state), "gen": str(st.gen), "prev": str(st.prev), "counted": boolean(st.counted),
		"extractor": str(st.extractor), "refs": num(int64(st.refs)), "updatedAt": num(st.updatedAt), "ver": num(st.ver)}
	if st.state == string(memory.KnowledgePending) {
		it["GSI1PK"], it["GSI1SK"] = str(pendingPK(orgID)), str(id)
	}
	return it
}

// flip makes next the status, in one transaction with a check that the
// memory is in the store, if the status is still cur. errRetry when it
// changed; ENOTFOUND when the memory is gone.
func (s *Store) flip(ctx context.Context, orgID, id string, cur, next kstatus) error {
	put := &types.Put{TableName: aws.String(s.table), Item: statusItem(orgID, id, next)}
	if cur.exists {
		put.ConditionExpression = aws.String("ver = :v")
		put.ExpressionAttributeValues = map[string]types.AttributeValue{":v": num(cur.ver)}
	} else {
		put.ConditionExpression = aws.String("attribute_not_exists(PK)")
	}
	_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skMemory),
			ConditionExpression:       aws.String("attribute_exists(PK) AND orgId = :org"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":org": str(orgID)}}},
		{Put: put},
	}})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		rs := tc.CancellationReasons
		if len(rs) > 0 && aws.ToString(rs[0].Code) == "ConditionalCheckFailed" {
			return memory.ErrNotFound(id)
		}
		if (len(rs) > 1 && aws.ToString(rs[1].Code) == "ConditionalCheckFailed") || isTransactionConflict(rs) {
			return errRetry
		}
	}
	return err
}

// settle finishes the status st of a memory: it moves the vocabulary
// counters from the terms of st.prev to those of st.gen (idempotently),
// marks the move done, and deletes every generation but the current one
// (those younger than genGrace only if they are st.prev: another writer
// may be about to flip to them). errRetry when another writer changed the
// status meanwhile.
func (s *Store) settle(ctx context.Context, orgID, id string, st kstatus) error {
	gens, markers, err := s.knowledgeItems(ctx, orgID, id)
	if err != nil {
		return err
	}
	if !st.counted {
		delta := termkit.VocabularyDelta{}
		if g := gens[st.prev]; st.prev != "" && g != nil && g.header {
			delta.AddVocabulary(g.attrs, g.refs, -1)
		}
		if g := gens[st.gen]; st.gen != "" && g != nil {
			delta.AddVocabulary(g.attrs, g.refs, +1)
		}
		if err := s.moveCounters(ctx, orgID, id, st, delta); err != nil {
			return err
		}
		_, err := s.c.UpdateItem(ctx, &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skKnow),
			UpdateExpression:    aws.String("SET counted = :t, prev = :e, ver = ver + :one"),
			ConditionExpression: aws.String("ver = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":t": boolean(true), ":e": str(""), ":one": num(1),
				":v": num(st.ver)}})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			return errRetry
		} else if err != nil {
			return err
		}
		st.ver++
		s.dropZeroCounters(ctx, orgID, delta)
	}
	for gid, g := range gens {
		if gid == st.gen && st.state != stateDeleting {
			continue
		}
		if gid == st.prev || genAge(gid) > genGrace || st.state == stateDeleting {
			if err := s.dropGen(ctx, orgID, id, g); err != nil {
				return err
			}
		}
	}
	var reqs []types.WriteRequest
	for _, m := range markers {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(memPK(orgID, id), m)}})
	}
	return s.batchWrite(ctx, reqs)
}

// moveCounters applies delta in transactions of maxCounterTx updates, each
// with its marker (attribute_not_exists: a chunk applied already is
// skipped) and a check that the status is still st (a move finished by
// another writer is not applied twice).
func (s *Store) moveCounters(ctx context.Context, orgID, id string, st kstatus, delta termkit.VocabularyDelta) error {
	keys := delta.Sorted()
	for chunk, start := 0, 0; start < len(keys); chunk, start = chunk+1, start+maxCounterTx {
		items := []types.TransactWriteItem{
			{Put: &types.Put{TableName: aws.String(s.table),
				Item: map[string]types.AttributeValue{"PK": str(memPK(orgID, id)),
					"SK": str("KCNT#" + st.prev + "#" + st.gen + "#" + strconv.Itoa(chunk)), "orgId": str(orgID)},
				ConditionExpression: aws.String("attribute_not_exists(PK)")}},
			{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skKnow),
				ConditionExpression:       aws.String("ver = :v"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(st.ver)}}},
		}
		for _, k := range keys[start:min(len(keys), start+maxCounterTx)] {
			d := delta[k]
			items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table),
				Key:              key(vocabPK(orgID, k.Scope), k.Term),
				UpdateExpression: aws.String("ADD live :l, archived :a SET orgId = :org, term = :t"),
				ExpressionAttributeValues: map[string]types.AttributeValue{":l": num(int64(d.Live)), ":a": num(int64(d.Archived)),
					":org": str(orgID), ":t": str(k.Term)}}})
		}
		_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items})
		var tc *types.TransactionCanceledException
		if errors.As(err, &tc) {
			rs := tc.CancellationReasons
			switch {
			case len(rs) > 1 && aws.ToString(rs[1].Code) == "ConditionalCheckFailed":
				return errRetry
			case len(rs) > 0 && aws.ToString(rs[0].Code) == countersApplied:
				continue
			case isTransactionConflict(rs):
				return errRetry
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dropZeroCounters deletes the counters delta lowered that are now zero;
// one raised meanwhile fails its condition and stays.
func (s *Store) dropZeroCounters(ctx context.Context, orgID string, delta termkit.VocabularyDelta) {
	for _, k := range delta.Sorted() {
		if d := delta[k]; d.Live >= 0 && d.Archived >= 0 {
			continue
		}
		_, _ = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(vocabPK(orgID, k.Scope), k.Term),
			ConditionExpression:       aws.String("live = :z AND archived = :z"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":z": num(0)}})
	}
}

// PutKnowledge implements memory.TermIndex (see the package's notes on
// generations).
func (s *Store) PutKnowledge(ctx context.Context, orgID, memoryID string, attrs memory.Attrs, extractor string, refs []memory.SemanticRef) error {
	attrs, refs, err := termkit.ValidPut(orgID, memoryID, attrs, extractor, refs)
	if err != nil {
		return err
	}
	return knowOp("put knowledge", s.replace(ctx, orgID, memoryID, func(kstatus) (memory.Attrs, string, string, []memory.SemanticRef, bool, error) {
		return attrs, string(memory.KnowledgeDone), extractor, refs, false, nil
	}))
}

// SetKnowledgeAttrs implements memory.TermIndex: the current refs are
// written again, with attrs, as a new generation.
func (s *Store) SetKnowledgeAttrs(ctx context.Context, orgID, memoryID string, attrs memory.Attrs) error {
	attrs, _, err := termkit.ValidPut(orgID, memoryID, attrs, "", nil)
	if err != nil {
		return err
	}
	err = s.replace(ctx, orgID, memoryID, func(st kstatus) (memory.Attrs, string, string, []memory.SemanticRef, bool, error) {
		if !st.exists || st.gen == "" || st.state == stateDeleting {
			return attrs, "", "", nil, true, nil
		}
		gens, _, err := s.knowledgeItems(ctx, orgID, memoryID)
		if err != nil {
			return attrs, "", "", nil, false, err
		}
		g := gens[st.gen]
		if g == nil || !g.header {
			return attrs, "", "", nil, false, fmt.Errorf("memory %s: generation %s is missing", memoryID, st.gen)
		}
		return attrs, st.state, g.extractor, g.refs, false, nil
	})
	if memory.IsNotFound(err) {
		return nil // the memory is gone: nothing to update
	}
	return knowOp("set knowledge attrs", err)
}

// DeleteKnowledge implements memory.TermIndex, memory by memory, eight at a
// time: the status becomes a tombstone (readers drop the memory's postings
// at once), the counters move out, every generation is deleted, then the
// tombstone.
func (s *Store) DeleteKnowledge(ctx context.Context, orgID string, memoryIDs []string) error {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return err
	}
	return knowOp("delete knowledge", s.each(ctx, memoryIDs, func(id string) error { return s.deleteKnowledge(ctx, orgID, id) }))
}

// each calls fn for every distinct id, eight at a time, and joins the
// errors.
func (s *Store) each(ctx context.Context, ids []string, fn func(id string) error) error {
	seen := make(map[string]bool, len(ids))
	distinct := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			distinct = append(distinct, id)
		}
	}
	ids = distinct
	var wg sync.WaitGroup
	errs := make([]error, len(ids))
	sem := make(chan struct{}, lookupParallel)
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int, id string) {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = fn(id)
		}(i, id)
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (s *Store) deleteKnowledge(ctx context.Context, orgID, id string) error {
	for attempt := 0; attempt < knowRetries; attempt++ {
		if attempt > 0 {
			if err := sleep(ctx, attempt); err != nil {
				return err
			}
		}
		st, err := s.readStatus(ctx, orgID, id)
		if err != nil {
			return err
		}
		if !st.exists {
			return s.sweep(ctx, orgID, id) // leftovers of an interrupted delete, or of failed writes
		}
		if !st.counted {
			if err := s.settle(ctx, orgID, id, st); err != nil && !errors.Is(err, errRetry) {
				return err
			}
			continue
		}
		tomb := kstatus{exists: true, state: stateDeleting, prev: st.gen, updatedAt: time.Now().UnixMilli(), ver: st.ver + 1}
		_, err = s.c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(s.table), Item: statusItem(orgID, id, tomb),
			ConditionExpression:       aws.String("ver = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(st.ver)}})
		var ccf *types.ConditionalCheckFailedException
		if errors.As(err, &ccf) {
			continue
		} else if err != nil {
			return err
		}
		if err := s.settle(ctx, orgID, id, tomb); errors.Is(err, errRetry) {
			continue
		} else if err != nil {
			return err
		}
		_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skKnow),
			ConditionExpression:       aws.String("ver = :v"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":v": num(tomb.ver + 1)}})
		if errors.As(err, &ccf) {
			continue
		} else if err != nil {
			return err
		}
		return s.sweep(ctx, orgID, id)
	}
	return memory.Errorf(memory.ECONFLICT, "memory %q: its knowledge was changed concurrently, again and again", id)
}

// sweep deletes every K item of a memory that has no status.
func (s *Store) sweep(ctx context.Context, orgID, id string) error {
	gens, markers, err := s.knowledgeItems(ctx, orgID, id)
	if err != nil {
		return err
	}
	for _, g := range gens {
		if err := s.dropGen(ctx, orgID, id, g); err != nil {
			return err
		}
	}
	var reqs []types.WriteRequest
	for _, m := range markers {
		reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: key(memPK(orgID, id), m)}})
	}
	return s.batchWrite(ctx, reqs)
}

// MarkKnowledgePending implements memory.TermIndex: per memory, one
// transaction that checks the memory is in the store and sets the state.
func (s *Store) MarkKnowledgePending(ctx context.Context, orgID string, memoryIDs []string) error {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return err
	}
	now := time.Now().UnixMilli()
	return knowOp("mark knowledge pending", s.each(ctx, memoryIDs, func(id string) error {
		for attempt := 0; ; attempt++ {
			err := s.markPending(ctx, orgID, id, now)
			if !errors.Is(err, errRetry) {
				return err
			}
			if attempt == knowRetries {
				return memory.Errorf(memory.ECONFLICT, "memory %q: its knowledge was changed concurrently, again and again", id)
			}
			if err := sleep(ctx, attempt+1); err != nil {
				return err
			}
		}
	}))
}

// markPending sets one memory's state to pending; errRetry when a
// concurrent transaction on the status got in the way.
func (s *Store) markPending(ctx context.Context, orgID, id string, now int64) error {
	_, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{
		{ConditionCheck: &types.ConditionCheck{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skMemory),
			ConditionExpression:       aws.String("attribute_exists(PK) AND orgId = :org"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":org": str(orgID)}}},
		{Update: &types.Update{TableName: aws.String(s.table), Key: key(memPK(orgID, id), skKnow),
			UpdateExpression: aws.String(`SET #state = :p, orgId = :org, memoryId = :id, updatedAt = :now, GSI1PK = :gpk,
				GSI1SK = :id, gen = if_not_exists(gen, :e), prev = if_not_exists(prev, :e),
				counted = if_not_exists(counted, :t), extractor = if_not_exists(extractor, :e),
				refs = if_not_exists(refs, :zero) ADD ver :one`),
			ConditionExpression:      aws.String("attribute_not_exists(PK) OR #state <> :deleting"),
			ExpressionAttributeNames: map[string]string{"#state": "state"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":p": str(string(memory.KnowledgePending)),
				":org": str(orgID), ":id": str(id), ":now": num(now), ":gpk": str(pendingPK(orgID)), ":e": str(""),
				":t": boolean(true), ":zero": num(0), ":one": num(1), ":deleting": str(stateDeleting)}}},
	}})
	var tc *types.TransactionCanceledException
	if errors.As(err, &tc) {
		for _, r := range tc.CancellationReasons {
			if aws.ToString(r.Code) == "ConditionalCheckFailed" {
				return nil // not in the store, or being deleted
			}
		}
		if isTransactionConflict(tc.CancellationReasons) {
			return errRetry
		}
	}
	return err
}

// PendingKnowledge implements memory.TermIndex from the sparse
// ORG#<org>#KPENDING partition of GSI1 (eventually consistent).
func (s *Store) PendingKnowledge(ctx context.Context, orgID, after string, limit int) ([]memory.KnowledgeStatus, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "term index: pending without org")
	}
	limit, err := memory.PageLimit(limit)
	if err != nil {
		return nil, err
	}
	cond := "GSI1PK = :pk"
	values := map[string]types.AttributeValue{":pk": str(pendingPK(orgID))}
	if after != "" {
		cond += " AND GSI1SK > :after"
		values[":after"] = str(after)
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), IndexName: aws.String("byOrg"),
		KeyConditionExpression: aws.String(cond), ExpressionAttributeValues: values, Limit: aws.Int32(int32(limit))}
	var out []memory.KnowledgeStatus
	for len(out) < limit {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, knowOp("pending knowledge", err)
		}
		for _, it := range res.Items {
			if st := statusOf(it); attrS(it, "orgId") == orgID && st.state == string(memory.KnowledgePending) && len(out) < limit {
				out = append(out, st.public(attrS(it, "memoryId")))
			}
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	return out, nil
}

// statuses reads the statuses of memories (tombstones excluded).
func (s *Store) statuses(ctx context.Context, orgID string, ids []string) (map[string]kstatus, error) {
	var keys []map[string]types.AttributeValue
	seen := map[string]bool{}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			keys = append(keys, key(memPK(orgID, id), skKnow))
		}
	}
	items, err := s.batchGet(ctx, keys, true)
	if err != nil {
		return nil, err
	}
	out := make(map[string]kstatus, len(items))
	for _, it := range items {
		if st := statusOf(it); attrS(it, "orgId") == orgID && st.state != stateDeleting {
			out[attrS(it, "memoryId")] = st
		}
	}
	return out, nil
}

// KnowledgeStatus implements memory.TermIndex.
func (s *Store) KnowledgeStatus(ctx context.Context, orgID string, memoryIDs []string) (map[string]memory.KnowledgeStatus, error) {
	if err := termkit.ValidMemoryIDs(orgID, memoryIDs); err != nil {
		return nil, err
	}
	sts, err := s.statuses(ctx, orgID, memoryIDs)
	if err != nil {
		return nil, knowOp("knowledge status", err)
	}
	out := make(map[string]memory.KnowledgeStatus, len(sts))
	for id, st := range sts {
		out[id] = st.public(id)
	}
	return out, nil
}

// gens caches the current generation of memories for one read: postings
// of any other generation are not (or no longer) the memory's.
type gens struct {
	s     *Store
	orgID string
	f     memory.Filter // the read's filter, whose audiences current checks again
	mu    sync.Mutex
	cur   map[string]string
}

func (s *Store) newGens(f memory.Filter) *gens {
	return &gens{s: s, orgID: f.OrgID, f: f, cur: map[string]string{}}
}

// current keeps the items whose gen is their memory's current one and
// whose audience the read's filter sees.
func (g *gens) current(ctx context.Context, items []map[string]types.AttributeValue) ([]map[string]types.AttributeValue, error) {
	g.mu.Lock()
	var missing []string
	for _, it := range items {
		if _, ok := g.cur[attrS(it, "memoryId")]; !ok {
			missing = append(missing, attrS(it, "memoryId"))
		}
	}
	g.mu.Unlock()
	if len(missing) > 0 {
		sts, err := g.s.statuses(ctx, g.orgID, missing)
		if err != nil {
			return nil, err
		}
		g.mu.Lock()
		for _, id := range missing {
			g.cur[id] = sts[id].gen // "" when none: matches no posting
		}
		g.mu.Unlock()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	out := items[:0:0]
	for _, it := range items {
		if gen := g.cur[attrS(it, "memoryId")]; gen != "" && gen == attrS(it, "gen") && attrS(it, "orgId") == g.orgID &&
			g.f.SeesAudience(attrS(it, attrAudience)) {
			out = append(out, it)
		}
	}
	return out, nil
}

// keyRange renders a sort key range [lo, hi) as a key condition on #sk;
// "" is open.
func keyRange(lo, hi string, names map[string]string, values map[string]types.AttributeValue) string {
	if lo != "" || hi != "" {
		names["#sk"] = "SK"
	}
	switch {
	case lo != "" && hi != "":
		values[":lo"], values[":hi"] = str(lo), str(below(hi))
		return " AND #sk BETWEEN :lo AND :hi"
	case lo != "":
		values[":lo"] = str(lo)
		return " AND #sk >= :lo"
	case hi != "":
		values[":hi"] = str(hi)
		return " AND #sk < :hi"
	}
	return ""
}

// queryCurrent pages through a query, keeping the current generation's
// items that keep accepts, until it has limit of them (0: all).
func (s *Store) queryCurrent(ctx context.Context, in *dynamodb.QueryInput, g *gens, limit int, keep func(map[string]types.AttributeValue) bool) ([]map[string]types.AttributeValue, error) {
	var out []map[string]types.AttributeValue
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, err
		}
		items, err := g.current(ctx, res.Items)
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			if keep == nil || keep(it) {
				out = append(out, it)
				if limit > 0 && len(out) == limit {
					return out, nil
				}
			}
		}
		if res.LastEvaluatedKey == nil {
			return out, nil
		}
		nextPage(in, res)
	}
}

// postingQuery renders the query of a posting partition, newest first
// when backward, with f as a filter expression and its time range in the
// key condition (the sort key starts with prefix, then the createdAt).
func (s *Store) postingQuery(pk, prefix string, f memory.Filter, extra string, extraValues map[string]types.AttributeValue, backward bool, pageSize int) *dynamodb.QueryInput {
	names := map[string]string{}
	values := map[string]types.AttributeValue{":pk": str(pk)}
	for k, v := range extraValues {
		values[k] = v
	}
	lo, hi := prefix, ""
	if prefix != "" {
		hi = prefix[:len(prefix)-1] + "\x02" // past every key that starts with prefix (which ends with sep)
	}
	if f.Start != 0 {
		lo = prefix + at16(f.Start)
	}
	if f.End != 0 {
		hi = prefix + at16(f.End)
	}
	cond := "PK = :pk" + keyRange(lo, hi, names, values)
	filter := filterExpr(f, names, values)
	if extra != "" {
		filter += " AND " + extra
	}
	return &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: aws.String(cond),
		FilterExpression: aws.String(filter), ExpressionAttributeNames: names, ExpressionAttributeValues: values,
		ScanIndexForward: aws.Bool(!backward), ConsistentRead: aws.Bool(true), Limit: aws.Int32(int32(pageSize))}
}

// LookupTerms implements memory.TermIndex: one backward query of each
// term's partition, eight at a time.
func (s *Store) LookupTerms(ctx context.Context, q memory.TermLookup) ([]memory.TermPosting, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	extra, extraValues := "", map[string]types.AttributeValue{}
	if len(q.Roles) > 0 {
		var ph []string
		for i, r := range q.Roles {
			p := fmt.Sprintf(":role%d", i)
			extraValues[p] = str(r)
			ph = append(ph, p)
		}
		extra = "#role IN (" + strings.Join(ph, ", ") + ")"
	}
	g := s.newGens(q.Filter)
	results := make([][]memory.TermPosting, len(q.Terms))
	err = s.each(ctx, q.Terms, func(term string) error {
		in := s.postingQuery(termPK(q.Filter.OrgID, term), "", q.Filter, extra, extraValues, true, min(maxPage, 2*q.Limit+10))
		if extra != "" {
			in.ExpressionAttributeNames["#role"] = "role"
		}
		items, err := s.queryCurrent(ctx, in, g, q.Limit, nil)
		if err != nil {
			return err
		}
		ps := make([]memory.TermPosting, len(items))
		for i, it := range items {
			ps[i] = memory.TermPosting{Term: attrS(it, "term"), Role: attrS(it, "role"),
				Ref:  memory.RefKey{MemoryID: attrS(it, "memoryId"), Ordinal: int(attrN(it, "ordinal"))},
				Kind: memory.KnowledgeKind(attrS(it, "refKind")), Attrs: itemAttrs(it)}
		}
		for i, t := range q.Terms {
			if t == term {
				results[i] = ps
			}
		}
		return nil
	})
	if err != nil {
		return nil, knowOp("lookup terms", err)
	}
	var out []memory.TermPosting
	for _, ps := range results {
		out = append(out, ps...)
	}
	return out, nil
}

// LookupProperty implements memory.TermIndex: one backward query of the
// name's partition within the value.
func (s *Store) LookupProperty(ctx context.Context, q memory.PropertyLookup) ([]memory.PropertyPosting, error) {
	q, err := q.Normalize()
	if err != nil {
		return nil, err
	}
	if q.Op == memory.OpExact {
		in := s.postingQuery(propPK(q.Filter.OrgID, q.Name), q.Value+sep, q.Filter, "", nil, true, min(maxPage, 2*q.Limit+10))
		items, err := s.queryCurrent(ctx, in, s.newGens(q.Filter), q.Limit, func(it map[string]types.AttributeValue) bool {
			return attrS(it, "value") == q.Value
		})
		if err != nil {
			return nil, knowOp("lookup property", err)
		}
		return propPostings(items), nil
	}
	var all []memory.PropertyPosting
	for _, r := range termkit.Ranges(q) {
		// A range of values is in value order, not time order: it is
		// read whole (up to maxRangePostings), then sorted.
		in := s.postingQuery(propPK(q.Filter.OrgID, r.Name), "", q.Filter, "", nil, false, maxPage)
		delete(in.ExpressionAttributeNames, "#sk")
		delete(in.ExpressionAttributeValues, ":lo")
		delete(in.ExpressionAttributeValues, ":hi")
		in.KeyConditionExpression = aws.String("PK = :pk" + keyRange(r.Lo, r.Hi, in.ExpressionAttributeNames, in.ExpressionAttributeValues))
		items, err := s.queryCurrent(ctx, in, s.newGens(q.Filter), maxRangePostings, nil)
		if err != nil {
			return nil, knowOp("lookup property", err)
		}
		all = append(all, propPostings(items)...)
	}
	return termkit.MergePropertyPostings(all, q.Limit), nil
}

// maxRangePostings bounds the postings one range of a property comparison
// reads.
const maxRangePostings = 4 * memory.MaxTermPostings

// propPostings decodes property posting items.
func propPostings(items []map[string]types.AttributeValue) []memory.PropertyPosting {
	out := make([]memory.PropertyPosting, len(items))
	for i, it := range items {
		out[i] = memory.PropertyPosting{Property: memory.Property{Name: attrS(it, "name"), Value: attrS(it, "value")},
			Ref:  memory.RefKey{MemoryID: attrS(it, "memoryId"), Ordinal: int(attrN(it, "ordinal"))},
			Kind: memory.KnowledgeKind(attrS(it, "refKind")), Attrs: itemAttrs(it)}
	}
	return out
}

// Refs implements memory.TermIndex: the statuses, then the refs of the
// current generations, each in BatchGetItem calls.
func (s *Store) Refs(ctx context.Context, orgID string, keys []memory.RefKey) (map[memory.RefKey]memory.SemanticRef, error) {
	if orgID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "term index: refs without org")
	}
	if len(keys) > memory.MaxRefKeys {
		return nil, memory.Errorf(memory.EINVALID, "keys: %d exceeds the limit of %d", len(keys), memory.MaxRefKeys)
	}
	ids := make([]string, 0, len(keys))
	for _, k := range keys {
		ids = append(ids, k.MemoryID)
	}
	sts, err := s.statuses(ctx, orgID, ids)
	if err != nil {
		return nil, knowOp("refs", err)
	}
	var get []map[string]types.AttributeValue
	seen := map[memory.RefKey]bool{}
	for _, k := range keys {
		if st, ok := sts[k.MemoryID]; ok && st.gen != "" && !seen[k] && k.Ordinal >= 0 && k.Ordinal < memory.MaxRefsPerMemory {
			seen[k] = true
			get = append(get, key(memPK(orgID, k.MemoryID), refSK(st.gen, k.Ordinal)))
		}
	}
	items, err := s.batchGet(ctx, get, true)
	if err != nil {
		return nil, knowOp("refs", err)
	}
	out := make(map[memory.RefKey]memory.SemanticRef, len(items))
	for _, it := range items {
		if attrS(it, "orgId") != orgID {
			continue
		}
		var r memory.SemanticRef
		if err := json.Unmarshal([]byte(attrS(it, "body")), &r); err != nil {
			return nil, fmt.Errorf("dynamodb: refs: decode %s: %w", attrS(it, "SK"), err)
		}
		out[r.Key()] = r
	}
	return out, nil
}

// Terms implements memory.TermIndex. Counters answer a filter of org,
// viewer, agent and archived: the counter partitions of its scopes are read
// within the prefix (at most maxVocabRead items each, in term order: a
// shorter prefix ranks those only) and summed. Any other filter takes as
// candidates the maxCandidates terms with most refs in the caller's scope
// and counts each one's postings that the filter selects.
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
	if scopes, ok := termkit.VocabularyScopes(f); ok {
		counts, err := s.counters(ctx, f.OrgID, scopes, prefix, f.IncludeArchived)
		if err != nil {
			return nil, knowOp("terms", err)
		}
		return rank(counts, limit), nil
	}
	base := memory.Filter{OrgID: f.OrgID, Viewer: f.Viewer, AgentID: f.AgentID, IncludeArchived: f.IncludeArchived}
	scopes, _ := termkit.VocabularyScopes(base)
	counts, err := s.counters(ctx, f.OrgID, scopes, prefix, f.IncludeArchived)
	if err != nil {
		return nil, knowOp("terms", err)
	}
	cands := rank(counts, maxCandidates)
	out := make([]memory.TermCount, len(cands))
	g := s.newGens(f)
	terms := make([]string, len(cands))
	for i, c := range cands {
		terms[i] = c.Term
	}
	err = s.each(ctx, terms, func(term string) error {
		in := s.postingQuery(termPK(f.OrgID, term), "", f, "", nil, true, 1000)
		in.ProjectionExpression = aws.String("memoryId, ordinal, gen, orgId, #paud")
		in.ExpressionAttributeNames["#paud"] = attrAudience
		items, err := s.queryCurrent(ctx, in, g, 0, nil)
		if err != nil {
			return err
		}
		refs := map[memory.RefKey]bool{}
		for _, it := range items {
			refs[memory.RefKey{MemoryID: attrS(it, "memoryId"), Ordinal: int(attrN(it, "ordinal"))}] = true
		}
		for i := range terms {
			if terms[i] == term {
				out[i] = memory.TermCount{Term: term, Count: len(refs)}
			}
		}
		return nil
	})
	if err != nil {
		return nil, knowOp("terms", err)
	}
	return rank(out, limit), nil
}

// rank drops zero counts, sorts (SortTermCounts) and keeps n.
func rank(ts []memory.TermCount, n int) []memory.TermCount {
	out := ts[:0:0]
	for _, t := range ts {
		if t.Count > 0 {
			out = append(out, t)
		}
	}
	memory.SortTermCounts(out)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// counters sums the counters of scopes within prefix.
func (s *Store) counters(ctx context.Context, orgID string, scopes []string, prefix string, archived bool) ([]memory.TermCount, error) {
	sums := map[string]int{}
	var mu sync.Mutex
	err := s.each(ctx, scopes, func(scope string) error {
		values := map[string]types.AttributeValue{":pk": str(vocabPK(orgID, scope))}
		cond := "PK = :pk"
		if prefix != "" {
			values[":p"] = str(prefix)
			cond += " AND begins_with(SK, :p)"
		}
		in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: aws.String(cond),
			ExpressionAttributeValues: values, ProjectionExpression: aws.String("term, live, archived, orgId")}
		read := 0
		for read < maxVocabRead {
			res, err := s.c.Query(ctx, in)
			if err != nil {
				return err
			}
			mu.Lock()
			for _, it := range res.Items {
				if attrS(it, "orgId") != orgID {
					continue
				}
				n := attrN(it, "live")
				if archived {
					n += attrN(it, "archived")
				}
				sums[attrS(it, "term")] += int(n)
			}
			mu.Unlock()
			read += len(res.Items)
			if res.LastEvaluatedKey == nil {
				break
			}
			in.ExclusiveStartKey = res.LastEvaluatedKey
		}
		return nil
	})
	out := make([]memory.TermCount, 0, len(sums))
	for t, n := range sums {
		out = append(out, memory.TermCount{Term: t, Count: n})
	}
	return out, err
}

// ListKnowledge implements memory.TermIndex: a forward query of the kind's
// partition from the cursor, folding the current, visible items of each
// name, until the name after the page's last.
func (s *Store) ListKnowledge(ctx context.Context, q memory.KnowledgeListQuery) (memory.KnowledgePage, error) {
	q, err := q.Normalize()
	if err != nil {
		return memory.KnowledgePage{}, err
	}
	after, _ := memory.DecodeKnowledgeCursor(q.Cursor)
	names := map[string]string{}
	values := map[string]types.AttributeValue{":pk": str(listPK(q.Filter.OrgID, q.Kind))}
	lo, hi := q.Prefix, ""
	if q.Prefix != "" {
		hi = q.Prefix + "\U0010FFFF"
	}
	if after != "" && after+"\x02" > lo {
		lo = after + "\x02" // past every key of the name after
	}
	cond := "PK = :pk"
	if lo != "" || hi != "" {
		names["#sk"] = "SK"
	}
	switch {
	case lo != "" && hi != "":
		values[":lo"], values[":hi"] = str(lo), str(hi)
		cond += " AND #sk BETWEEN :lo AND :hi"
	case lo != "":
		values[":lo"] = str(lo)
		cond += " AND #sk >= :lo"
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: aws.String(cond),
		FilterExpression: aws.String(filterExpr(q.Filter, names, values)), ExpressionAttributeNames: names,
		ExpressionAttributeValues: values, ConsistentRead: aws.Bool(true), Limit: aws.Int32(1000)}
	g := s.newGens(q.Filter)
	var page memory.KnowledgePage
	var cur *termkit.KnowledgeBuilder
	curName := ""
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return page, knowOp("list knowledge", err)
		}
		items, err := g.current(ctx, res.Items)
		if err != nil {
			return page, knowOp("list knowledge", err)
		}
		for _, it := range items {
			name := attrS(it, "name")
			if cur == nil || name != curName {
				if cur != nil {
					page.Items = append(page.Items, cur.Item())
				}
				if len(page.Items) == q.Limit {
					page.Next = memory.EncodeKnowledgeCursor(page.Items[len(page.Items)-1].Name)
					return page, nil
				}
				cur, curName = termkit.NewKnowledgeBuilder(q.Kind, name), name
			}
			a := itemAttrs(it)
			cur.Count(attrS(it, "memoryId"), a.CreatedAt)
			if body := attrS(it, "body"); body != "" {
				var r memory.SemanticRef
				if err := json.Unmarshal([]byte(body), &r); err != nil {
					return page, fmt.Errorf("dynamodb: list knowledge: decode %s: %w", attrS(it, "SK"), err)
				}
				cur.Merge(r, a.CreatedAt)
			}
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	if cur != nil {
		page.Items = append(page.Items, cur.Item())
	}
	return page, nil
}

// Vocabulary implements memory.TermIndex from the counters of ScopeAll.
func (s *Store) Vocabulary(ctx context.Context, orgID, after string, limit int) ([]string, string, error) {
	if orgID == "" {
		return nil, "", memory.Errorf(memory.EINTERNAL, "term index: vocabulary without org")
	}
	limit, err := memory.VocabularyLimit(limit)
	if err != nil {
		return nil, "", err
	}
	values := map[string]types.AttributeValue{":pk": str(vocabPK(orgID, termkit.ScopeAll)), ":z": num(0)}
	cond := "PK = :pk"
	if after != "" {
		values[":after"] = str(after)
		cond += " AND SK > :after"
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), KeyConditionExpression: aws.String(cond),
		FilterExpression: aws.String("live > :z OR archived > :z"), ExpressionAttributeValues: values,
		ProjectionExpression: aws.String("term, orgId"), ConsistentRead: aws.Bool(true)}
	var out []string
	for len(out) <= limit {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return nil, "", knowOp("vocabulary", err)
		}
		for _, it := range res.Items {
			if attrS(it, "orgId") == orgID {
				out = append(out, attrS(it, "term"))
			}
		}
		if res.LastEvaluatedKey == nil {
			break
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
	next := ""
	if len(out) > limit {
		out = out[:limit]
		next = out[limit-1]
	}
	return out, next, nil
}
