package dynamodb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/store/dynamodb/schema"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Staged documents and their commit.
//
// A staged memory (memory.Memory.Pending) is an ordinary memory item whose
// "pending" attribute is true; the visible filters exclude it, Filter.Pending
// selects it. A document of thousands of fragments cannot be published in
// one DynamoDB transaction (100 actions at most), so the commit is keyed off
// a marker instead:
//
//  1. tag: every staged memory of the document, and every memory the new
//     version retires, gets the commit's random token and its role ("show"
//     or "retire"); visibility does not change yet;
//  2. commit: one transaction puts the document's commit marker (a record of
//     kind DOCCOMMIT holding the token) together with the status record.
//     This single conditional write is the moment the version changes;
//  3. roll forward: each tagged memory's pending attribute is flipped to
//     its role and the tag removed; then the marker is deleted.
//
// Readers resolve a tagged memory against the marker of its document: while
// a marker with the memory's token exists, the role decides (shown, or
// retired); otherwise the pending attribute does. So every reader sees the
// old version or the new one, never a mix, and a crash at any point leaves
// a consistent table: before step 2 the tags are inert (Recover discards
// the staged memories); after it the marker makes the new version visible
// until SettleCommits finishes step 3.
const (
	kindCommit  = "DOCCOMMIT"
	attrPending = "pending"
	attrToken   = "commitToken"
	attrRole    = "commitRole"
	roleShow    = "show"
	roleRetire  = "retire"
)

var _ memory.DocumentCommitter = (*Store)(nil)

// visibility is the filter-expression part of Filter.Pending. Tagged
// memories match both ways and are resolved after reading.
func visibility(f memory.Filter, q *query) string {
	q.names["#pend"], q.names["#tok"] = attrPending, attrToken
	if f.Pending {
		q.values[":ptrue"] = boolean(true)
		return "(#pend = :ptrue OR attribute_exists(#tok))"
	}
	q.values[":pfalse"] = boolean(false)
	return "(attribute_not_exists(#pend) OR #pend = :pfalse OR attribute_exists(#tok))"
}

// markers reads the commit markers of the documents of the tagged items
// among its, by document id: their tokens. Items without a tag need none.
func (s *Store) markers(ctx context.Context, org string, its []map[string]types.AttributeValue) (map[string]string, error) {
	seen := map[string]bool{}
	var keys []map[string]types.AttributeValue
	for _, it := range its {
		if attrS(it, attrToken) == "" {
			continue
		}
		if d := attrS(it, "documentId"); !seen[d] {
			seen[d] = true
			keys = append(keys, key(recordPK(org, kindCommit), d))
		}
	}
	out := map[string]string{}
	if len(keys) == 0 {
		return out, nil
	}
	heads, err := s.batchGet(ctx, keys, true)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: commit markers: %w", err)
	}
	for _, h := range heads {
		if attrS(h, "orgId") == org {
			out[attrS(h, "SK")] = attrS(h, attrToken)
		}
	}
	return out, nil
}

// staged reports whether an item is staged (invisible), given the markers
// of its org.
func staged(it map[string]types.AttributeValue, marks map[string]string) bool {
	if tok := attrS(it, attrToken); tok != "" && marks[attrS(it, "documentId")] == tok {
		return attrS(it, attrRole) != roleShow
	}
	b, _ := it[attrPending].(*types.AttributeValueMemberBOOL)
	return b != nil && b.Value
}

// resolve keeps the items of its whose resolved state matches pending.
func (s *Store) resolve(ctx context.Context, org string, its []map[string]types.AttributeValue, pending bool) ([]map[string]types.AttributeValue, error) {
	marks, err := s.markers(ctx, org, its)
	if err != nil {
		return nil, err
	}
	out := its[:0:0]
	for _, it := range its {
		if staged(it, marks) == pending {
			out = append(out, it)
		}
	}
	return out, nil
}

// decode turns items into memories with their resolved Pending flag and
// their access counters (read from their access items).
func (s *Store) decode(ctx context.Context, org string, its []map[string]types.AttributeValue) ([]*memory.Memory, error) {
	acc, err := s.accesses(ctx, its)
	if err != nil {
		return nil, err
	}
	return s.decodeWith(ctx, org, its, acc)
}

// decodeWith is decode with the access counters read already.
func (s *Store) decodeWith(ctx context.Context, org string, its []map[string]types.AttributeValue, acc map[string]access) ([]*memory.Memory, error) {
	marks, err := s.markers(ctx, org, its)
	if err != nil {
		return nil, err
	}
	out := make([]*memory.Memory, 0, len(its))
	for _, it := range its {
		m, err := fromItem(addAccess(it, acc))
		if err != nil {
			return nil, err
		}
		m.Pending = staged(it, marks)
		out = append(out, m)
	}
	return out, nil
}

// CommitDocument implements memory.DocumentCommitter (see the comment at
// the top of this file): tag, one transaction for the marker and the status
// record, roll forward. It returns the ids it made visible.
func (s *Store) CommitDocument(ctx context.Context, dc memory.DocumentCommit) ([]string, error) {
	if dc.OrgID == "" || dc.DocumentID == "" {
		return nil, memory.Errorf(memory.EINTERNAL, "dynamodb: commit document: no org or document")
	}
	// A commit of this document interrupted earlier is finished first: one
	// marker per document at a time.
	if _, err := s.settleCommit(ctx, dc.OrgID, dc.DocumentID); err != nil {
		return nil, fmt.Errorf("dynamodb: commit document %s: %w", dc.DocumentID, err)
	}
	show, err := s.stagedIDs(ctx, dc.OrgID, dc.DocumentID)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: commit document %s: %w", dc.DocumentID, err)
	}
	var b [12]byte
	rand.Read(b[:])
	tok := hex.EncodeToString(b[:])
	tags := make([]tag, 0, len(show)+len(dc.Retire))
	for _, id := range show {
		tags = append(tags, tag{id, roleShow})
	}
	for _, id := range dc.Retire {
		tags = append(tags, tag{id, roleRetire})
	}
	tagged, err := s.tagAll(ctx, dc.OrgID, dc.DocumentID, tok, tags)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: commit document %s: tag: %w", dc.DocumentID, err)
	}
	if err := s.publish(ctx, dc, tok); err != nil {
		return nil, fmt.Errorf("dynamodb: commit document %s: %w", dc.DocumentID, err)
	}
	// Committed. If the roll forward fails part way, the marker keeps the
	// new version visible until the next commit of the document or
	// SettleCommits finishes it, so the commit still succeeded.
	_ = s.rollForward(ctx, dc.OrgID, dc.DocumentID, tok, tagged)
	var shown []string
	for _, t := range tagged {
		if t.role == roleShow {
			shown = append(shown, t.id)
		}
	}
	return shown, nil
}

// publish is the commit point: one transaction puts the document's marker
// with token tok and the status record, or neither.
func (s *Store) publish(ctx context.Context, dc memory.DocumentCommit, tok string) error {
	items := []types.TransactWriteItem{{Put: &types.Put{TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{"PK": str(recordPK(dc.OrgID, kindCommit)), "SK": str(dc.DocumentID),
			"orgId": str(dc.OrgID), attrToken: str(tok), "version": num(1), "value": str("{}")},
		ConditionExpression: aws.String("attribute_not_exists(PK)")}}}
	if dc.RecordKind != "" {
		js, err := json.Marshal(dc.Record)
		if err != nil {
			return fmt.Errorf("record: %w", err)
		}
		items = append(items, types.TransactWriteItem{Update: &types.Update{TableName: aws.String(s.table),
			Key:                      key(recordPK(dc.OrgID, dc.RecordKind), dc.RecordID),
			UpdateExpression:         aws.String("SET orgId = :org, #v = :value, version = if_not_exists(version, :zero) + :one"),
			ExpressionAttributeNames: map[string]string{"#v": "value"},
			ExpressionAttributeValues: map[string]types.AttributeValue{":org": str(dc.OrgID), ":value": str(string(js)),
				":zero": num(0), ":one": num(1)}}})
	}
	if _, err := s.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: items}); err != nil {
		var tc *types.TransactionCanceledException
		if errors.As(err, &tc) {
			return memory.Errorf(memory.ECONFLICT, "document %q is being committed concurrently", dc.DocumentID)
		}
		return err
	}
	return nil
}

// tag is a memory of a commit and its role.
type tag struct{ id, role string }

// stagedIDs lists the staged memories of a document.
func (s *Store) stagedIDs(ctx context.Context, org, doc string) ([]string, error) {
	var ids []string
	err := s.queryDocument(ctx, org, doc, "#pend = :ptrue", map[string]types.AttributeValue{":ptrue": boolean(true)},
		func(it map[string]types.AttributeValue) { ids = append(ids, attrS(it, "id")) })
	return ids, err
}

// queryDocument runs fn on the memory items of a document that match cond
// (over #pend, #tok).
func (s *Store) queryDocument(ctx context.Context, org, doc, cond string, values map[string]types.AttributeValue, fn func(map[string]types.AttributeValue)) error {
	vals := map[string]types.AttributeValue{":pk": str("ORG#" + org + "#DOC#" + doc), ":org": str(org)}
	for k, v := range values {
		vals[k] = v
	}
	in := &dynamodb.QueryInput{TableName: aws.String(s.table), IndexName: aws.String(schema.ByDocument.Name),
		KeyConditionExpression:    aws.String("#pk = :pk"),
		FilterExpression:          aws.String("orgId = :org AND " + cond),
		ProjectionExpression:      aws.String("id, documentId, orgId, #pend, #tok, #role"),
		ExpressionAttributeNames:  map[string]string{"#pk": schema.ByDocument.PartitionKey, "#pend": attrPending, "#tok": attrToken, "#role": attrRole},
		ExpressionAttributeValues: vals}
	for {
		res, err := s.c.Query(ctx, in)
		if err != nil {
			return err
		}
		for _, it := range res.Items {
			fn(it)
		}
		if res.LastEvaluatedKey == nil {
			return nil
		}
		in.ExclusiveStartKey = res.LastEvaluatedKey
	}
}

// tagAll tags the memories of a commit, 16 at a time, and returns those
// that still existed (a memory deleted meanwhile is skipped).
func (s *Store) tagAll(ctx context.Context, org, doc, tok string, tags []tag) ([]tag, error) {
	return s.eachTag(ctx, tags, func(t tag) (*dynamodb.UpdateItemInput, error) {
		return &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: key(memPK(org, t.id), skMemory),
			UpdateExpression:          aws.String("SET #tok = :tok, #role = :role"),
			ConditionExpression:       aws.String("orgId = :org AND documentId = :doc"),
			ExpressionAttributeNames:  map[string]string{"#tok": attrToken, "#role": attrRole},
			ExpressionAttributeValues: map[string]types.AttributeValue{":tok": str(tok), ":role": str(t.role), ":org": str(org), ":doc": str(doc)}}, nil
	})
}

// rollForward applies the roles of a committed token's memories to their
// pending attribute, removes the tags, then deletes the marker.
func (s *Store) rollForward(ctx context.Context, org, doc, tok string, tags []tag) error {
	_, err := s.eachTag(ctx, tags, func(t tag) (*dynamodb.UpdateItemInput, error) { return s.flipTag(org, tok, t), nil })
	if err != nil {
		return err
	}
	_, err = s.c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(recordPK(org, kindCommit), doc),
		ConditionExpression:       aws.String("#tok = :tok"),
		ExpressionAttributeNames:  map[string]string{"#tok": attrToken},
		ExpressionAttributeValues: map[string]types.AttributeValue{":tok": str(tok)}})
	var ccf *types.ConditionalCheckFailedException
	if err != nil && !errors.As(err, &ccf) {
		return err
	}
	return nil
}

// flipTag is the update that applies a tagged memory's role to its pending
// attribute and removes the tag, if the tag is still tok.
func (s *Store) flipTag(org, tok string, t tag) *dynamodb.UpdateItemInput {
	return &dynamodb.UpdateItemInput{TableName: aws.String(s.table), Key: key(memPK(org, t.id), skMemory),
		UpdateExpression:          aws.String("SET #pend = :p REMOVE #tok, #role"),
		ConditionExpression:       aws.String("#tok = :tok"),
		ExpressionAttributeNames:  map[string]string{"#pend": attrPending, "#tok": attrToken, "#role": attrRole},
		ExpressionAttributeValues: map[string]types.AttributeValue{":p": boolean(t.role != roleShow), ":tok": str(tok)}}
}

// eachTag runs one conditional update per tag, 16 at a time, and returns the
// tags whose condition held.
func (s *Store) eachTag(ctx context.Context, tags []tag, in func(tag) (*dynamodb.UpdateItemInput, error)) ([]tag, error) {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		ok   = make([]bool, len(tags))
		errs = make([]error, len(tags))
		sem  = make(chan struct{}, 16)
	)
	for i, t := range tags {
		u, err := in(t)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			_, err := s.c.UpdateItem(ctx, u)
			var ccf *types.ConditionalCheckFailedException
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				ok[i] = true
			case errors.As(err, &ccf): // deleted, or no longer this commit's
			default:
				errs[i] = err
			}
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []tag
	for i, t := range tags {
		if ok[i] {
			out = append(out, t)
		}
	}
	return out, nil
}

// settleCommit finishes the commit of doc whose marker exists (a process stopped
// after the commit point): its tagged memories are rolled forward. It
// returns the memories flipped.
func (s *Store) settleCommit(ctx context.Context, org, doc string) (int, error) {
	res, err := s.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(s.table),
		Key: key(recordPK(org, kindCommit), doc), ConsistentRead: aws.Bool(true)})
	if err != nil {
		return 0, err
	}
	if res.Item == nil || attrS(res.Item, "orgId") != org {
		return 0, nil
	}
	tok := attrS(res.Item, attrToken)
	var tags []tag
	err = s.queryDocument(ctx, org, doc, "#tok = :tok", map[string]types.AttributeValue{":tok": str(tok)},
		func(it map[string]types.AttributeValue) {
			tags = append(tags, tag{attrS(it, "id"), attrS(it, attrRole)})
		})
	if err != nil {
		return 0, err
	}
	return len(tags), s.rollForward(ctx, org, doc, tok, tags)
}

// SettleCommits finishes every document commit of org that a stopped
// process left between its commit point and the end of its roll forward,
// and returns how many memories it flipped. Readers already see those
// documents committed; settling removes the marker look-ups. The ingestion
// recovery calls it before discarding staged memories.
func (s *Store) SettleCommits(ctx context.Context, org string) (int, error) {
	total := 0
	after := ""
	for {
		recs, next, err := s.ListRecords(ctx, org, kindCommit, after, 100)
		if err != nil {
			return total, fmt.Errorf("dynamodb: settle commits of %s: %w", org, err)
		}
		for _, r := range recs {
			n, err := s.settleCommit(ctx, org, r.ID)
			total += n
			if err != nil {
				return total, fmt.Errorf("dynamodb: settle commit %s/%s: %w", org, r.ID, err)
			}
		}
		if next == "" {
			return total, nil
		}
		after = next
	}
}
