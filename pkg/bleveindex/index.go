// Package bleveindex is the embedded Index: BM25 keyword search by bleve
// (English analyzer: possessives, stop words, Porter stemming) and exact
// vector search over an in-memory matrix, both persisted under one
// directory so a restart loses nothing.
//
// Vectors are written to a bbolt file and loaded at start; search scans the
// org's vectors (cosine on unit vectors is a dot product), applying the
// filter first, and keeps the top k in a heap. Exact search is written by
// hand because no maintained pure-Go library offers filtered vector search
// with persistence (bleve's own vectors need FAISS through cgo); it is
// linear in the org's size, and the package's benchmark reports what that
// costs.
package bleveindex

import (
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	bolt "go.etcd.io/bbolt"
)

// Index is the embedded hybrid index. It is safe for concurrent use.
type Index struct {
	text bleve.Index
	db   *bolt.DB

	mu   sync.RWMutex
	dims int
	orgs map[string]*orgVectors
}

var _ memory.Index = (*Index)(nil)

var (
	bucketVectors = []byte("vectors")
	bucketMeta    = []byte("meta")
	keyModel      = []byte("model")
)

// orgVectors holds one org's vectors as a dense matrix with parallel slices.
type orgVectors struct {
	ids   []string
	attrs []memory.Attrs
	data  []float32 // len(ids) * dims
	pos   map[string]int
}

// Open opens (creating if needed) the index in dir for vectors of model
// with dims dimensions. When the directory holds another model's vectors,
// they are dropped with the text index and Open reports rebuild = true: the
// caller must re-add every memory.
func Open(dir, model string, dims int) (ix *Index, rebuild bool, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	db, err := bolt.Open(filepath.Join(dir, "vectors.db"), 0o600, &bolt.Options{Timeout: 5e9})
	if err != nil {
		return nil, false, fmt.Errorf("open vectors: %w", err)
	}
	ix = &Index{db: db, dims: dims, orgs: map[string]*orgVectors{}}
	var stored string
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		stored = string(meta.Get(keyModel))
		if stored != model {
			if tx.Bucket(bucketVectors) != nil {
				if err := tx.DeleteBucket(bucketVectors); err != nil {
					return err
				}
			}
			if err := meta.Put(keyModel, []byte(model)); err != nil {
				return err
			}
		}
		_, err = tx.CreateBucketIfNotExists(bucketVectors)
		return err
	})
	if err != nil {
		db.Close()
		return nil, false, err
	}
	textDir := filepath.Join(dir, "text.bleve")
	if stored != model {
		rebuild = stored != "" // a fresh directory needs no rebuild of its own
		if err := os.RemoveAll(textDir); err != nil {
			db.Close()
			return nil, false, err
		}
	}
	ix.text, err = openText(textDir)
	if err != nil {
		db.Close()
		return nil, false, err
	}
	if err := ix.load(); err != nil {
		ix.Close()
		return nil, false, err
	}
	return ix, rebuild, nil
}

func openText(dir string) (bleve.Index, error) {
	idx, err := bleve.Open(dir)
	if errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		idx, err = bleve.New(dir, textMapping())
	}
	if err != nil {
		return nil, fmt.Errorf("open text index: %w", err)
	}
	return idx, nil
}

// Field names in the text index.
const (
	fText = "text"
	fOrg  = "org"
	fAge  = "agent"
	fType = "type"
	fKind = "kind"
	fRoom = "room"
	fEnt  = "entity"
	fSess = "session"
	fDoc  = "document"
	fDur  = "durability"
	fArch = "archived"
	fTime = "created"
	// orgScopeTerm stands for an empty agent id, which an analyzer drops.
	orgScopeTerm = "\x00org"
)

func textMapping() mapping.IndexMapping {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store = false
	text.IncludeTermVectors = false
	kw := bleve.NewKeywordFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store = false
	kw.IncludeInAll = false
	num := bleve.NewNumericFieldMapping()
	num.Store = false
	num.IncludeInAll = false
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fText, text)
	for _, f := range []string{fOrg, fAge, fType, fKind, fRoom, fEnt, fSess, fDoc, fDur, fArch} {
		doc.AddFieldMappingsAt(f, kw)
	}
	doc.AddFieldMappingsAt(fTime, num)
	m := bleve.NewIndexMapping()
	m.DefaultMapping = doc
	m.DefaultAnalyzer = en.AnalyzerName
	m.ScoringModel = index.BM25Scoring
	m.StoreDynamic, m.IndexDynamic, m.DocValuesDynamic = false, false, false
	return m
}

func docID(org, id string) string { return org + "\x1f" + id }

func splitDocID(s string) (string, string) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1f {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}

func agentTerm(a string) string {
	if a == "" {
		return orgScopeTerm
	}
	return a
}

func textDoc(m *memory.Memory) map[string]any {
	return map[string]any{
		fText: m.SearchText(), fOrg: m.OrgID, fAge: agentTerm(m.AgentID), fType: string(m.Type),
		fKind: string(m.Kind), fRoom: m.RoomID, fEnt: m.EntityID, fSess: m.SessionID, fDoc: m.DocumentID,
		fDur: string(m.Durability), fArch: fmt.Sprint(m.Archived), fTime: float64(m.CreatedAt),
	}
}

// load reads every vector from bbolt into memory.
func (ix *Index) load() error {
	return ix.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketVectors).ForEach(func(k, v []byte) error {
			a, vec, err := decodeEntry(v)
			if err != nil {
				return fmt.Errorf("vector %q: %w", k, err)
			}
			if ix.dims == 0 {
				ix.dims = len(vec)
			}
			ix.put(a, string(k[len(a.OrgID)+1:]), vec)
			return nil
		})
	})
}

// entry layout: uvarint length of the attrs JSON, the JSON, float32s.
func encodeEntry(a memory.Attrs, vec []float32) []byte {
	js, _ := json.Marshal(a)
	b := binary.AppendUvarint(nil, uint64(len(js)))
	b = append(b, js...)
	return append(b, memory.EncodeVector(vec)...)
}

func decodeEntry(b []byte) (memory.Attrs, []float32, error) {
	var a memory.Attrs
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return a, nil, errors.New("corrupt entry")
	}
	if err := json.Unmarshal(b[k:k+int(n)], &a); err != nil {
		return a, nil, err
	}
	return a, memory.DecodeVector(b[k+int(n):]), nil
}

func vecKey(org, id string) []byte { return []byte(org + "\x00" + id) }

// put sets (or replaces) one vector in memory; ix.mu must be held.
func (ix *Index) put(a memory.Attrs, id string, vec []float32) {
	o := ix.orgs[a.OrgID]
	if o == nil {
		o = &orgVectors{pos: map[string]int{}}
		ix.orgs[a.OrgID] = o
	}
	if i, ok := o.pos[id]; ok {
		o.attrs[i] = a
		copy(o.data[i*ix.dims:(i+1)*ix.dims], vec)
		return
	}
	o.pos[id] = len(o.ids)
	o.ids = append(o.ids, id)
	o.attrs = append(o.attrs, a)
	o.data = append(o.data, vec...)
}

// remove deletes one vector by moving the last into its place; ix.mu held.
func (ix *Index) remove(org, id string) {
	o := ix.orgs[org]
	if o == nil {
		return
	}
	i, ok := o.pos[id]
	if !ok {
		return
	}
	last := len(o.ids) - 1
	if i != last {
		o.ids[i], o.attrs[i] = o.ids[last], o.attrs[last]
		copy(o.data[i*ix.dims:(i+1)*ix.dims], o.data[last*ix.dims:])
		o.pos[o.ids[i]] = i
	}
	o.ids, o.attrs, o.data = o.ids[:last], o.attrs[:last], o.data[:last*ix.dims]
	delete(o.pos, id)
	if len(o.ids) == 0 {
		delete(ix.orgs, org)
	}
}

// Upsert implements memory.Index. Memories without an embedding are indexed
// for keywords only.
func (ix *Index) Upsert(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	for _, m := range ms {
		if m.OrgID == "" || m.ID == "" {
			return errors.New("bleveindex: memory without org or id")
		}
		if len(m.Embedding) != 0 && ix.dims != 0 && len(m.Embedding) != ix.dims {
			return fmt.Errorf("bleveindex: embedding of %d dimensions, index has %d", len(m.Embedding), ix.dims)
		}
	}
	b := ix.text.NewBatch()
	for _, m := range ms {
		if err := b.Index(docID(m.OrgID, m.ID), textDoc(m)); err != nil {
			return err
		}
	}
	err := ix.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketVectors)
		for _, m := range ms {
			var err error
			if len(m.Embedding) == 0 {
				err = bk.Delete(vecKey(m.OrgID, m.ID))
			} else {
				err = bk.Put(vecKey(m.OrgID, m.ID), encodeEntry(m.Attrs(), m.Embedding))
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := ix.text.Batch(b); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, m := range ms {
		if len(m.Embedding) == 0 {
			ix.remove(m.OrgID, m.ID)
			continue
		}
		if ix.dims == 0 {
			ix.dims = len(m.Embedding)
		}
		ix.put(m.Attrs(), m.ID, m.Embedding)
	}
	return nil
}

// Delete implements memory.Index.
func (ix *Index) Delete(ctx context.Context, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	b := ix.text.NewBatch()
	for _, id := range ids {
		b.Delete(docID(orgID, id))
	}
	if err := ix.text.Batch(b); err != nil {
		return err
	}
	err := ix.db.Update(func(tx *bolt.Tx) error {
		bk := tx.Bucket(bucketVectors)
		for _, id := range ids {
			if err := bk.Delete(vecKey(orgID, id)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range ids {
		ix.remove(orgID, id)
	}
	return nil
}

// Search implements memory.Index, running the keyword and vector searches
// concurrently.
func (ix *Index) Search(ctx context.Context, q memory.IndexQuery) (memory.IndexResult, error) {
	var res memory.IndexResult
	if q.Filter.OrgID == "" {
		return res, errors.New("bleveindex: search without org")
	}
	if q.K <= 0 {
		return res, nil
	}
	var kwErr error
	var wg sync.WaitGroup
	if q.Text != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.Keyword, kwErr = ix.keyword(ctx, q)
		}()
	}
	if q.Vector != nil {
		res.Semantic = ix.semantic(q)
	}
	wg.Wait()
	return res, kwErr
}

func term(field, v string) query.Query {
	t := bleve.NewTermQuery(v)
	t.SetField(field)
	t.SetBoost(0)
	return t
}

func anyTerm[T ~string](field string, vs []T) query.Query {
	qs := make([]query.Query, len(vs))
	for i, v := range vs {
		qs[i] = term(field, string(v))
	}
	d := bleve.NewDisjunctionQuery(qs...)
	d.SetBoost(0)
	return d
}

// filterQueries renders f as bleve queries; the org term is always first.
func filterQueries(f memory.Filter) []query.Query {
	qs := []query.Query{term(fOrg, f.OrgID)}
	if f.Viewer != "" {
		qs = append(qs, anyTerm(fAge, []string{orgScopeTerm, f.Viewer}))
	}
	switch f.AgentID {
	case "":
	case memory.OrgScope:
		qs = append(qs, term(fAge, orgScopeTerm))
	default:
		qs = append(qs, term(fAge, f.AgentID))
	}
	if len(f.Types) > 0 {
		qs = append(qs, anyTerm(fType, f.Types))
	}
	if len(f.Kinds) > 0 {
		qs = append(qs, anyTerm(fKind, f.Kinds))
	}
	for _, p := range [][2]string{{fDur, string(f.Durability)}, {fRoom, f.RoomID}, {fEnt, f.EntityID},
		{fSess, f.SessionID}, {fDoc, f.DocumentID}} {
		if p[1] != "" {
			qs = append(qs, term(p[0], p[1]))
		}
	}
	if f.Start != 0 || f.End != 0 {
		var lo, hi *float64
		t := true
		fls := false
		if f.Start != 0 {
			v := float64(f.Start)
			lo = &v
		}
		if f.End != 0 {
			v := float64(f.End)
			hi = &v
		}
		r := bleve.NewNumericRangeInclusiveQuery(lo, hi, &t, &fls)
		r.SetField(fTime)
		r.SetBoost(0)
		qs = append(qs, r)
	}
	if !f.IncludeArchived {
		qs = append(qs, term(fArch, "false"))
	}
	return qs
}

func (ix *Index) keyword(ctx context.Context, q memory.IndexQuery) ([]memory.Hit, error) {
	mq := bleve.NewMatchQuery(q.Text)
	mq.SetField(fText)
	mq.Analyzer = en.AnalyzerName
	conj := bleve.NewConjunctionQuery(append([]query.Query{mq}, filterQueries(q.Filter)...)...)
	req := bleve.NewSearchRequestOptions(conj, q.K, 0, false)
	req.Score = "" // default scoring
	sr, err := ix.text.SearchInContext(ctx, req)
	if err != nil {
		return nil, err
	}
	hits := make([]memory.Hit, 0, len(sr.Hits))
	for _, h := range sr.Hits {
		org, id := splitDocID(h.ID)
		if org != q.Filter.OrgID { // cannot happen with the org term; never trust it blindly
			continue
		}
		hits = append(hits, memory.Hit{ID: id, Score: h.Score})
	}
	return hits, nil
}

// scored is a min-heap of hits by score, for top-k selection.
type scored []memory.Hit

func (h scored) Len() int { return len(h) }
func (h scored) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}
func (h scored) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *scored) Push(x any)   { *h = append(*h, x.(memory.Hit)) }
func (h *scored) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// parallelMin is the org size from which the scan is split across cores.
const parallelMin = 16_384

func (ix *Index) semantic(q memory.IndexQuery) []memory.Hit {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	o := ix.orgs[q.Filter.OrgID]
	if o == nil || len(q.Vector) != ix.dims {
		return nil
	}
	n := len(o.ids)
	parts := 1
	if n >= parallelMin {
		parts = runtime.GOMAXPROCS(0)
	}
	tops := make([]scored, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			tops[p] = ix.scan(o, q, p*n/parts, (p+1)*n/parts)
		}(p)
	}
	wg.Wait()
	all := tops[0]
	for _, t := range tops[1:] {
		for _, h := range t {
			pushTop(&all, h, q.K)
		}
	}
	out := make([]memory.Hit, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&all).(memory.Hit)
	}
	return out
}

func pushTop(h *scored, x memory.Hit, k int) {
	if h.Len() < k {
		heap.Push(h, x)
	} else if x.Score > (*h)[0].Score || (x.Score == (*h)[0].Score && x.ID < (*h)[0].ID) {
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

func (ix *Index) scan(o *orgVectors, q memory.IndexQuery, from, to int) scored {
	top := make(scored, 0, q.K+1)
	d := ix.dims
	for i := from; i < to; i++ {
		if !q.Filter.Match(o.attrs[i]) {
			continue
		}
		s := float64(dot(q.Vector, o.data[i*d:(i+1)*d]))
		pushTop(&top, memory.Hit{ID: o.ids[i], Score: s}, q.K)
	}
	return top
}

// dot is the inner product, unrolled by four.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

// Clear empties the index: every org's text and vectors. It must not run
// concurrently with other calls; the embedded backend uses it at start-up.
func (ix *Index) Clear() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	dir := filepath.Join(filepath.Dir(ix.db.Path()), "text.bleve")
	if err := ix.text.Close(); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	text, err := openText(dir)
	if err != nil {
		return err
	}
	ix.text = text
	ix.orgs = map[string]*orgVectors{}
	return ix.db.Update(func(tx *bolt.Tx) error {
		if err := tx.DeleteBucket(bucketVectors); err != nil {
			return err
		}
		_, err := tx.CreateBucket(bucketVectors)
		return err
	})
}

// Len returns how many vectors the index holds, over all orgs.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := 0
	for _, o := range ix.orgs {
		n += len(o.ids)
	}
	return n
}

// DocCount returns how many documents the text index holds.
func (ix *Index) DocCount() (uint64, error) { return ix.text.DocCount() }

// Close flushes and closes both halves.
func (ix *Index) Close() error {
	var errs []error
	if ix.text != nil {
		errs = append(errs, ix.text.Close())
	}
	errs = append(errs, ix.db.Close())
	return errors.Join(errs...)
}
