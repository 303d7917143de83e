// Package bolt is the embedded Index: BM25 keyword search and exact
// vector search over per-org in-memory structures, persisted in one bbolt
// file so a restart loses nothing.
//
// Every memory is one bbolt entry holding its filterable attributes, its
// analysed terms with their frequencies, and its vector. At start the
// entries are loaded into one structure per org: an inverted index (term →
// postings of document ordinals and frequencies) with document lengths, and
// a dense vector matrix. Keeping orgs apart means a query never touches
// another tenant's postings or vectors, needs no org filter clause, and
// scores with the org's own statistics (IDF and average length), and
// within the org with those of the memories the reader may see (stats.go).
//
// Text analysis is bleve's English analyzer (possessives, lower case, stop
// words, Porter stemming), the same chain as OpenSearch's `english`.
// Scoring is BM25 as OpenSearch computes it (k1 = 1.2, b = 0.75, with the
// (k1+1) factor that Lucene dropped and OpenSearch keeps), so the two
// engines give the same scores. Keyword search scores term at a time into a
// pooled accumulator, then keeps the top k of the matches that pass the
// filter.
//
// Vector search is exact but reads mostly int8: each vector is also kept
// quantized with its own scale (a quarter of the bytes, multiplied in AVX2
// where the CPU has it), and the norms of the quantized vector and of its
// rounding residual bound how far the exact cosine can be from the int8
// estimate. A first pass over the int8 vectors keeps the candidates whose
// upper bound reaches the k-th best lower bound; only those are scored on
// the float32 vectors. The scan runs in parallel past 16k vectors.
//
// Past ANNConfig.Threshold vectors (32,768 by default) an org also has an
// HNSW graph over the same int8 vectors (hnsw.go, ann.go): the walk finds
// the candidates, filters applied as it goes, and the same float32 re-rank
// orders them; a filter selective enough that the walk would cost more than
// the scan still takes the exact scan. The graph is saved at Close and
// restored at Open (hnsw_persist.go), else rebuilt in the background while
// the exact scan answers.
//
// The index is written by hand: bleve's query machinery spent most of its
// time outside scoring (about 30 ms p95 at 100,000 memories against a 10 ms
// target), and no maintained pure-Go library offers filtered vector search
// with persistence (bleve's own vectors need FAISS through cgo).
package bolt

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentmem/agentmem/internal/vecdot"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
	bbolt "go.etcd.io/bbolt"
)

// BM25 parameters, Lucene's defaults (and so OpenSearch's).
const (
	k1 = 1.2
	b  = 0.75
)

// format names the on-disk layout; a directory in another layout is
// dropped and rebuilt from the store.
const format = "boltindex/3" // 2: messages carry their day in the keyword text; 3: entries carry metadata pairs

var (
	bucketDocs   = []byte("docs")
	bucketStamps = []byte("stamps") // docKey → Stamp of what the entry was made from
	bucketMeta   = []byte("meta")
	keyModel     = []byte("model")
	keyFormat    = []byte("format")
	keyReembed   = []byte("reembed")           // set while vectors of another model remain
	oldBuckets   = [][]byte{[]byte("vectors")} // layouts of earlier versions
	oldTextIndex = "text.bleve"
)

// Index is the embedded hybrid index. It is safe for concurrent use.
type Index struct {
	db       *bbolt.DB
	analyzer analysis.Analyzer

	mu    sync.RWMutex
	dims  int
	orgs  map[string]*orgIndex
	acc   sync.Pool // *accumulator
	norms sync.Pool // *bm25
	// reembedding: the index holds vectors of another model than its own
	// (a model change), so semantic search is off until FinishReembedding.
	reembedding bool

	dir       string
	ann       ANNConfig     // the approximate vector index (ann.go)
	closing   chan struct{} // closed by Close: background graph builds stop
	closeOnce sync.Once
	restored  int // graphs restored at Open
	// releasePages: searches and writes release the pages they read
	// (ReleasePages).
	releasePages atomic.Bool
	builders     sync.WaitGroup
	linkMu       sync.Mutex
	linking      map[*orgIndex]bool // orgs whose new ordinals a linker is adding to the graph
}

var _ memory.Index = (*Index)(nil)

// Open opens (creating if needed) the index in dir for vectors of model
// with dims dimensions. When the directory holds another layout, it is
// emptied and Open reports rebuild = true: the caller must re-add every
// memory. When it holds another model's vectors, it keeps its entries, so
// keyword search works at once, and turns semantic search off (see
// Reembedding) until every memory has been upserted with a vector of the
// new model and FinishReembedding is called.
func Open(dir, model string, dims int) (ix *Index, rebuild bool, err error) {
	an, err := registry.NewCache().AnalyzerNamed(en.AnalyzerName)
	if err != nil {
		return nil, false, fmt.Errorf("english analyzer: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, false, err
	}
	db, err := bbolt.Open(filepath.Join(dir, "index.db"), 0o600, &bbolt.Options{Timeout: 5e9})
	if err != nil {
		return nil, false, fmt.Errorf("open index: %w", err)
	}
	ix = &Index{db: db, dir: dir, analyzer: an, dims: dims, orgs: map[string]*orgIndex{}, ann: DefaultANN, closing: make(chan struct{})}
	err = db.Update(func(tx *bbolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		storedModel, storedFormat := string(meta.Get(keyModel)), string(meta.Get(keyFormat))
		switch {
		case storedFormat != format:
			rebuild = storedModel != "" // a fresh directory needs no rebuild of its own
			for _, name := range append([][]byte{bucketDocs, bucketStamps}, oldBuckets...) {
				if tx.Bucket(name) != nil {
					if err := tx.DeleteBucket(name); err != nil {
						return err
					}
				}
			}
			if err := meta.Delete(keyReembed); err != nil {
				return err
			}
		case storedModel != model:
			if err := meta.Put(keyReembed, []byte(storedModel)); err != nil {
				return err
			}
		}
		if err := meta.Put(keyModel, []byte(model)); err != nil {
			return err
		}
		if err := meta.Put(keyFormat, []byte(format)); err != nil {
			return err
		}
		ix.reembedding = meta.Get(keyReembed) != nil
		if _, err := tx.CreateBucketIfNotExists(bucketStamps); err != nil {
			return err
		}
		_, err = tx.CreateBucketIfNotExists(bucketDocs)
		return err
	})
	if err == nil {
		err = os.RemoveAll(filepath.Join(dir, oldTextIndex))
	}
	if err == nil {
		err = ix.load()
	}
	if err == nil {
		ix.mu.Lock()
		ix.restoreGraphs(dir)
		for id, o := range ix.orgs {
			if o.graph != nil { // restored: insert what it lacks, then answer
				ix.startBuild(id, o)
			} else {
				ix.maintain(id, o)
			}
		}
		ix.mu.Unlock()
	}
	if err != nil {
		db.Close()
		return nil, false, err
	}
	return ix, rebuild, nil
}

// Reembedding reports whether the index may hold vectors of another model
// than its own: semantic search is off until FinishReembedding.
func (ix *Index) Reembedding() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.reembedding
}

// StartReembedding marks the index as holding vectors of another model
// (the store's memories were embedded by one): semantic search is off, and
// upserted vectors of other dimensions are dropped instead of refused,
// until FinishReembedding. It persists across restarts.
func (ix *Index) StartReembedding(from string) error {
	if from == "" {
		from = "unknown"
	}
	err := ix.db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Put(keyReembed, []byte(from)) })
	if err != nil {
		return err
	}
	ix.mu.Lock()
	ix.reembedding = true
	ix.mu.Unlock()
	return nil
}

// FinishReembedding declares every vector the index holds of its own
// model, and turns semantic search back on. The caller must have upserted
// every memory with a vector of the model since StartReembedding, or
// since Open reported the change.
func (ix *Index) FinishReembedding() error {
	err := ix.db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keyReembed) })
	if err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.reembedding = false
	return nil
}

// Stamp is what the index was made from for one memory: a hash of its
// filterable attributes, its keyword text and its embedding model. The
// start-up check compares it with the store's memory to find entries that
// are missing or stale, whatever the counts say.
func Stamp(m *memory.Memory) uint64 {
	h := fnv.New64a()
	js, _ := json.Marshal(m.Attrs())
	h.Write(js)
	h.Write([]byte{0})
	h.Write([]byte(m.KeywordText()))
	h.Write([]byte{0})
	if len(m.Embedding) > 0 {
		fmt.Fprintf(h, "%s/%d", m.EmbeddingModel, len(m.Embedding))
	}
	return h.Sum64()
}

// stampValue is what the stamps bucket keeps of m: its Stamp and the
// version it was indexed at.
func stampValue(m *memory.Memory) []byte {
	return binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(make([]byte, 0, 16), Stamp(m)), uint64(m.Version))
}

// Stamps calls fn with the org, id, Stamp and version of every entry: the
// stamp is 0 for an entry written before stamps were kept, the version -1
// for one written before versions were (compare its stamp).
func (ix *Index) Stamps(fn func(org, id string, stamp uint64, version int64) error) error {
	return ix.view(func(tx *bbolt.Tx) error {
		sb := tx.Bucket(bucketStamps)
		return tx.Bucket(bucketDocs).ForEach(func(k, _ []byte) error {
			org, id, _ := strings.Cut(string(k), "\x00")
			stamp, version := uint64(0), int64(-1)
			v := sb.Get(k)
			if len(v) >= 8 {
				stamp = binary.LittleEndian.Uint64(v)
			}
			if len(v) == 16 {
				version = int64(binary.LittleEndian.Uint64(v[8:]))
			}
			return fn(org, id, stamp, version)
		})
	})
}

// view runs fn in a read transaction, then takes the pages it read out of
// the resident set (release).
func (ix *Index) view(fn func(tx *bbolt.Tx) error) error {
	return ix.db.View(func(tx *bbolt.Tx) error {
		defer release(tx)
		return fn(tx)
	})
}

// ReleasePages sets whether searches and writes take the pages they read
// through bbolt's map out of the resident set when they end (release), as
// a load and the stamps' listing always do. Off (the default), the pages
// of the float32 vectors the re-scores read and of the B-tree the writes
// walk stay mapped, up to the whole file: 1.8 KB per memory after 1,600
// searches at 100,000 memories. On, each re-scored vector is a page fault
// that maps its folio again: 0.2 to 0.3 ms more per vector search at
// 100,000 memories and 0.3 to 0.4 ms at a million (docs/benchmarks.md,
// "Resident memory per memory"). Writes follow the same switch: releasing
// after each would drop the pages the searches between them keep mapped,
// and charge the searches that cost with the switch off.
func (ix *Index) ReleasePages(on bool) { ix.releasePages.Store(on) }

// ReleasesPages reports what ReleasePages set.
func (ix *Index) ReleasesPages() bool { return ix.releasePages.Load() }

// update runs fn in a write transaction, then, with ReleasePages, takes
// the pages it read and wrote out of the resident set (release, in a read
// transaction of its own: bbolt may remap the file while it commits).
func (ix *Index) update(fn func(tx *bbolt.Tx) error) error {
	if err := ix.db.Update(fn); err != nil {
		return err
	}
	if ix.releasePages.Load() {
		// The write is done: a database closed since leaves nothing to release.
		_ = ix.view(func(*bbolt.Tx) error { return nil })
	}
	return nil
}

// Restamp records the versions of memories whose entries were checked
// against them and found current (their stamps equal), so that the next
// check compares versions only; memories the index does not hold are
// skipped.
func (ix *Index) Restamp(ms []*memory.Memory) error {
	return ix.update(func(tx *bbolt.Tx) error {
		bk, sb := tx.Bucket(bucketDocs), tx.Bucket(bucketStamps)
		for _, m := range ms {
			k := docKey(m.OrgID, m.ID)
			if bk.Get(k) == nil {
				continue
			}
			if err := sb.Put(k, stampValue(m)); err != nil {
				return err
			}
		}
		return nil
	})
}

// doc is one memory as the index keeps it.
type doc struct {
	attrs  memory.Attrs
	terms  []string
	tfs    []uint16
	length uint32 // tokens after analysis
	vec    []float32
	q8     []int8 // or the vector already quantized (compaction)
	quant  quant
}

// analyze turns text into distinct terms with their frequencies and the
// token count.
func (ix *Index) analyze(text string) (terms []string, tfs []uint16, length uint32) {
	toks := ix.analyzer.Analyze([]byte(text))
	at := make(map[string]int, len(toks))
	for _, t := range toks {
		s := string(t.Term)
		if i, ok := at[s]; ok {
			if tfs[i] < math.MaxUint16 {
				tfs[i]++
			}
			continue
		}
		at[s] = len(terms)
		terms = append(terms, s)
		tfs = append(tfs, 1)
	}
	return terms, tfs, uint32(len(toks))
}

// entry layout: uvarint length of the attrs JSON, the JSON, uvarint token
// count, uvarint number of terms, each term as uvarint length, bytes and
// uvarint frequency, then the vector's float32s to the end.
func encodeDoc(d *doc) []byte {
	js, _ := json.Marshal(d.attrs)
	buf := binary.AppendUvarint(nil, uint64(len(js)))
	buf = append(buf, js...)
	buf = binary.AppendUvarint(buf, uint64(d.length))
	buf = binary.AppendUvarint(buf, uint64(len(d.terms)))
	for i, t := range d.terms {
		buf = binary.AppendUvarint(buf, uint64(len(t)))
		buf = append(buf, t...)
		buf = binary.AppendUvarint(buf, uint64(d.tfs[i]))
	}
	return append(buf, memory.EncodeVector(d.vec)...)
}

var errCorrupt = errors.New("corrupt entry")

// walkDoc reads an encoded entry: it returns the attrs JSON, the token
// count and the vector bytes, and hands each term to term (when not nil).
// ok is false when the entry is malformed.
func walkDoc(buf []byte, term func(t []byte, tf uint64)) (attrs []byte, length uint64, vec []byte, ok bool) {
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(buf)
		if n <= 0 {
			return 0, false
		}
		buf = buf[n:]
		return v, true
	}
	bytes := func() ([]byte, bool) {
		n, ok := next()
		if !ok || uint64(len(buf)) < n {
			return nil, false
		}
		b := buf[:n]
		buf = buf[n:]
		return b, true
	}
	if attrs, ok = bytes(); !ok {
		return
	}
	if length, ok = next(); !ok {
		return
	}
	count, ok := next()
	if !ok || count > uint64(len(buf)) {
		return nil, 0, nil, false
	}
	for i := uint64(0); i < count; i++ {
		t, ok := bytes()
		if !ok {
			return nil, 0, nil, false
		}
		tf, ok := next()
		if !ok {
			return nil, 0, nil, false
		}
		if term != nil {
			term(t, tf)
		}
	}
	return attrs, length, buf, len(buf)%4 == 0
}

// decodeDoc decodes an entry; its vector goes into scratch (grown as
// needed), which the caller may reuse once the doc has been added.
func decodeDoc(buf []byte, scratch *[]float32) (*doc, error) {
	d := &doc{}
	attrs, length, raw, ok := walkDoc(buf, func(t []byte, tf uint64) {
		d.terms = append(d.terms, string(t))
		d.tfs = append(d.tfs, uint16(tf))
	})
	if !ok {
		return nil, errCorrupt
	}
	if err := json.Unmarshal(attrs, &d.attrs); err != nil {
		return nil, err
	}
	d.length = uint32(length)
	if n := len(raw) / 4; n > 0 {
		if cap(*scratch) < n {
			*scratch = make([]float32, n)
		}
		d.vec = (*scratch)[:n]
		decodeVector(raw, d.vec)
	}
	return d, nil
}

// decodeVector reads memory.EncodeVector's bytes into v without allocating.
func decodeVector(raw []byte, v []float32) {
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
}

// vectorOf returns the vector bytes of an encoded entry, nil if it is
// malformed.
func vectorOf(buf []byte) []byte {
	_, _, vec, ok := walkDoc(buf, nil)
	if !ok {
		return nil
	}
	return vec
}

func docKey(org, id string) []byte { return []byte(org + "\x00" + id) }

// loadChunk is how many entries one decoding task of load takes.
const loadChunk = 256

// loadTask is a chunk of entries, in key order, and their decoded docs.
type loadTask struct {
	keys, vals [][]byte
	docs       []*doc
	err        error
	done       chan struct{}
}

// load reads every entry from bbolt into memory. Decoding an entry and
// quantizing its vector (two fifths of a start at a million memories) run
// on every core, a chunk of entries per task; the org structures are
// filled one chunk after another, in key order (ordinals follow the keys,
// as in a single pass). Each org's slices are sized first from a count of
// its keys in the stamps bucket (small entries, read in a fraction of a
// second): appending a million vectors to a growing matrix copied it over
// and over (a seventh of the start).
func (ix *Index) load() error {
	return ix.view(func(tx *bbolt.Tx) error {
		sizes := map[string]int{}
		if err := tx.Bucket(bucketStamps).ForEach(func(k, _ []byte) error {
			if org, _, ok := bytes.Cut(k, []byte{0}); ok {
				sizes[string(org)]++
			}
			return nil
		}); err != nil {
			return err
		}
		workers := runtime.GOMAXPROCS(0)
		tasks := make(chan *loadTask, workers)
		inOrder := make(chan *loadTask, 2*workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var vec []float32
				for t := range tasks {
					t.decode(&vec)
				}
			}()
		}
		added := make(chan error, 1)
		var failed atomic.Bool
		go func() { // the adder: ix.mu is not needed, nothing else sees ix yet
			var err error
			for t := range inOrder {
				<-t.done
				if err == nil {
					if err = ix.addLoaded(t, sizes); err != nil {
						failed.Store(true)
					}
				}
			}
			added <- err
		}()
		t := &loadTask{done: make(chan struct{})}
		send := func() {
			tasks <- t
			inOrder <- t
			t = &loadTask{done: make(chan struct{})}
		}
		err := tx.Bucket(bucketDocs).ForEach(func(k, v []byte) error {
			if failed.Load() {
				return errStopLoad
			}
			// k and v stay valid until the transaction ends, after the adder.
			t.keys, t.vals = append(t.keys, k), append(t.vals, v)
			if len(t.keys) == loadChunk {
				send()
			}
			return nil
		})
		if len(t.keys) > 0 {
			send()
		}
		close(tasks)
		close(inOrder)
		wg.Wait()
		if err := <-added; err != nil {
			return err
		}
		for _, o := range ix.orgs {
			o.trim()
		}
		return err
	})
}

// errStopLoad stops load's reading once adding has failed.
var errStopLoad = errors.New("boltindex: load stopped")

// decode decodes the task's entries and quantizes their vectors; vec is
// the worker's scratch.
func (t *loadTask) decode(vec *[]float32) {
	defer close(t.done)
	t.docs = make([]*doc, len(t.keys))
	var arena []int8 // the chunk's quantized vectors
	for i, v := range t.vals {
		d, err := decodeDoc(v, vec)
		if err != nil {
			t.err = fmt.Errorf("index entry %q: %w", t.keys[i], err)
			return
		}
		if n := len(d.vec); n > 0 {
			if len(arena) < n {
				arena = make([]int8, n*(len(t.vals)-i))
			}
			d.q8, arena = arena[:n:n], arena[n:]
			d.quant, d.vec = quantize(d.vec, d.q8), nil
		}
		t.docs[i] = d
	}
}

// addLoaded adds a decoded task's docs to their orgs, sizing an org's
// slices for sizes[org] memories when it is created.
func (ix *Index) addLoaded(t *loadTask, sizes map[string]int) error {
	if t.err != nil {
		return t.err
	}
	for i, d := range t.docs {
		k := t.keys[i]
		if len(k) <= len(d.attrs.OrgID) {
			return fmt.Errorf("index entry %q: %w", k, errCorrupt)
		}
		if len(d.q8) != 0 && ix.dims == 0 {
			ix.dims = len(d.q8)
		}
		if len(d.q8) != ix.dims {
			d.q8 = nil // another model's, awaiting re-embedding: keywords only
		}
		o := ix.orgs[d.attrs.OrgID]
		if o == nil {
			o = ix.org(d.attrs.OrgID)
			o.reserve(sizes[d.attrs.OrgID], ix.dims)
		}
		o.add(string(k[len(d.attrs.OrgID)+1:]), d, ix.dims)
	}
	return nil
}

// org returns the org's structure, creating it; ix.mu must be held.
func (ix *Index) org(id string) *orgIndex {
	o := ix.orgs[id]
	if o == nil {
		o = newOrgIndex()
		ix.orgs[id] = o
	}
	return o
}

// Upsert implements memory.Index. Memories without an embedding are indexed
// for keywords only.
func (ix *Index) Upsert(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	ix.mu.RLock()
	dims, reembedding := ix.dims, ix.reembedding
	ix.mu.RUnlock()
	docs := make([]*doc, len(ms))
	for i, m := range ms {
		if m.OrgID == "" || m.ID == "" {
			return errors.New("boltindex: memory without org or id")
		}
		d := &doc{attrs: m.Attrs(), vec: m.Embedding}
		if len(m.Embedding) != 0 {
			if dims == 0 {
				dims = len(m.Embedding)
			}
			if len(m.Embedding) != dims {
				if !reembedding {
					return fmt.Errorf("boltindex: embedding of %d dimensions, index has %d", len(m.Embedding), dims)
				}
				d.vec = nil // the old model's: keywords until it is re-embedded
			}
		}
		d.terms, d.tfs, d.length = ix.analyze(m.KeywordText())
		docs[i] = d
	}
	err := ix.update(func(tx *bbolt.Tx) error {
		bk, sb := tx.Bucket(bucketDocs), tx.Bucket(bucketStamps)
		for i, m := range ms {
			k := docKey(m.OrgID, m.ID)
			if err := bk.Put(k, encodeDoc(docs[i])); err != nil {
				return err
			}
			if err := sb.Put(k, stampValue(m)); err != nil {
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
	if ix.dims == 0 {
		ix.dims = dims
	}
	for i, m := range ms {
		o := ix.org(m.OrgID)
		o.remove(m.ID, ix.dims)
		o.add(m.ID, docs[i], ix.dims)
	}
	for _, m := range ms {
		if o := ix.orgs[m.OrgID]; o != nil && (o.graph == nil || o.graph.built < len(o.ids)) {
			ix.maintain(m.OrgID, o)
		}
	}
	return nil
}

// Delete implements memory.Index.
func (ix *Index) Delete(ctx context.Context, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	err := ix.update(func(tx *bbolt.Tx) error {
		bk, sb := tx.Bucket(bucketDocs), tx.Bucket(bucketStamps)
		for _, id := range ids {
			if err := bk.Delete(docKey(orgID, id)); err != nil {
				return err
			}
			if err := sb.Delete(docKey(orgID, id)); err != nil {
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
	o := ix.orgs[orgID]
	if o == nil {
		return nil
	}
	for _, id := range ids {
		o.remove(id, ix.dims)
	}
	if o.live == 0 {
		delete(ix.orgs, orgID)
		return nil
	}
	ix.maintain(orgID, o)
	return nil
}

// Search implements memory.Index, running the keyword and vector searches
// concurrently.
func (ix *Index) Search(ctx context.Context, q memory.IndexQuery) (memory.IndexResult, error) {
	var res memory.IndexResult
	if q.Filter.OrgID == "" {
		return res, errors.New("boltindex: search without org")
	}
	if q.K <= 0 {
		return res, nil
	}
	var terms []string
	var qtfs []uint16
	if q.Text != "" {
		terms, qtfs, _ = ix.analyze(q.Text)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	o := ix.orgs[q.Filter.OrgID]
	if o == nil {
		return res, nil
	}
	var wg sync.WaitGroup
	if len(terms) > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.Keyword = ix.keyword(o, q, terms, qtfs)
		}()
	}
	var err error
	if q.Vector != nil && len(q.Vector) == ix.dims && !ix.reembedding {
		res.Semantic, err = ix.semantic(o, q)
	}
	wg.Wait()
	if err != nil {
		return res, err
	}
	return res, ctx.Err()
}

// parallelMin is the org size from which the vector scan is split across
// cores.
const parallelMin = 16_384

// parallel calls fn(i) for every i in [0, n) on up to workers goroutines
// (the vector scan's parts, keyword search's parts, the graph's batches).
func parallel(workers, n int, fn func(i int)) {
	if workers <= 1 || n <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// semantic scans the org's vectors (ix.mu held for reading) in two
// passes. The first reads the int8 vectors (in parallel parts past 16k),
// bounding each exact score within [approx − bound, approx + bound]; the
// k-th best lower bound over all parts is a floor that every true top-k
// vector's upper bound reaches. The second scores only the candidates above
// the floor, on their float32 vectors read from bbolt's memory map.
func (ix *Index) semantic(o *orgIndex, q memory.IndexQuery) ([]memory.Hit, error) {
	if cands, floor, ok := ix.approximate(o, q); ok {
		return ix.rerank(o, q, cands, floor)
	}
	n := len(o.ids)
	parts := 1
	if n >= parallelMin {
		parts = runtime.GOMAXPROCS(0)
	}
	qx := make([]int16, ix.dims)
	xq := quantizeQuery(q.Vector, qx)
	type part struct {
		lower floorHeap
		cands []candidate
	}
	ps := make([]part, parts)
	parallel(parts, parts, func(p int) {
		ps[p].lower, ps[p].cands = ix.scan(o, q, qx, xq, p*n/parts, (p+1)*n/parts)
	})
	var lows []float32
	var cands []candidate
	for _, p := range ps {
		lows = append(lows, p.lower...)
		cands = append(cands, p.cands...)
	}
	return ix.rerank(o, q, cands, kthBest(lows, q.K))
}

// kthBest returns the k-th greatest of lows (which it sorts), or −∞ when
// there are fewer.
func kthBest(lows []float32, k int) float32 {
	if len(lows) < k {
		return float32(math.Inf(-1))
	}
	slices.Sort(lows)
	return lows[len(lows)-k]
}

// rerank is the second pass: it scores the candidates whose upper bound
// reaches floor on their float32 vectors, read from bbolt's memory map, and
// keeps the k best.
func (ix *Index) rerank(o *orgIndex, q memory.IndexQuery, cands []candidate, floor float32) ([]memory.Hit, error) {
	top := make(scored, 0, q.K+1)
	vec := make([]float32, ix.dims)
	// Best upper bound first: the reading stops at the first candidate
	// whose upper bound is below the floor or below the k-th exact score
	// found so far, as none after it can enter. Each read is a vector from
	// bbolt's map, a page fault when the org's vectors are not in the page
	// cache (two million memories on 24 GB).
	slices.SortFunc(cands, func(a, b candidate) int { return cmp.Compare(b.upper, a.upper) })
	read := ix.db.View
	if ix.releasePages.Load() {
		read = ix.view
	}
	err := read(func(tx *bbolt.Tx) error {
		bk := tx.Bucket(bucketDocs)
		for _, c := range cands {
			if c.upper < floor || (len(top) == q.K && float64(c.upper) < top[0].Score) {
				break
			}
			id := o.ids[c.ord]
			raw := vectorOf(bk.Get(docKey(q.Filter.OrgID, id)))
			if len(raw) != 4*ix.dims { // also nil: the entry is gone
				continue // deleted or rewritten without a vector since; memory catches up after our lock
			}
			decodeVector(raw, vec)
			pushTop(&top, memory.Hit{ID: id, Score: float64(dot(q.Vector, vec))}, q.K)
		}
		return nil
	})
	return drain(top), err
}

// candidate is a vector whose exact score may reach the top k.
type candidate struct {
	ord   int
	upper float32
}

// scan is the first pass over ordinals from..to: the k best lower bounds
// and the vectors whose upper bound reached the running floor.
func (ix *Index) scan(o *orgIndex, q memory.IndexQuery, qx []int16, xq quant, from, to int) (floorHeap, []candidate) {
	d := ix.dims
	lower := make(floorHeap, 0, q.K)
	var cands []candidate
	m := newMatcher(o, q.Filter)
	for i := from; i < to; i++ {
		if !o.hasVec[i] || !m.match(i) {
			continue
		}
		a, bound := approx(qx, xq, o.q8[i*d:(i+1)*d], o.quants[i])
		lo, up := a-bound, a+bound
		switch {
		case len(lower) < q.K:
			heap.Push(&lower, lo)
			cands = append(cands, candidate{i, up})
		case up >= lower[0]:
			cands = append(cands, candidate{i, up})
			if lo > lower[0] {
				lower[0] = lo
				heap.Fix(&lower, 0)
			}
		}
	}
	return lower, cands
}

// floorHeap is a min-heap of lower bounds.
type floorHeap []float32

func (h floorHeap) Len() int           { return len(h) }
func (h floorHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floorHeap) Push(x any)        { *h = append(*h, x.(float32)) }
func (h *floorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// scored is a min-heap of hits by score (ties: the greater id is lower),
// for top-k selection.
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

func pushTop(h *scored, x memory.Hit, k int) {
	if h.Len() < k {
		heap.Push(h, x)
	} else if x.Score > (*h)[0].Score || (x.Score == (*h)[0].Score && x.ID < (*h)[0].ID) {
		(*h)[0] = x
		heap.Fix(h, 0)
	}
}

// drain empties the heap into hits, best first.
func drain(h scored) []memory.Hit {
	out := make([]memory.Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(memory.Hit)
	}
	return out
}

// dot is the float32 inner product: vek's AVX2/FMA assembly where the CPU
// has it, plain Go elsewhere.
func dot(a, b []float32) float32 { return vecdot.Float32(a, b) }

// Clear empties the index of every org. The embedded backend uses it
// before a rebuild.
func (ix *Index) Clear() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.orgs = map[string]*orgIndex{}
	return ix.update(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketDocs, bucketStamps} {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(name); err != nil {
				return err
			}
		}
		return nil
	})
}

// Len returns how many vectors the index holds, over all orgs.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := 0
	for _, o := range ix.orgs {
		n += o.vectors
	}
	return n
}

// DocCount returns how many memories the index holds, over all orgs.
func (ix *Index) DocCount() (uint64, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	n := 0
	for _, o := range ix.orgs {
		n += o.live
	}
	return uint64(n), nil
}

// Close stops the background graph builds, saves the built graphs (see
// hnsw_persist.go) and closes the bbolt file.
func (ix *Index) Close() error {
	ix.stopANN()
	ix.mu.Lock()
	if err := ix.saveGraphs(ix.dir); err != nil {
		slog.Warn("boltindex: vector graphs not saved; the next start rebuilds them", "err", err)
	}
	ix.mu.Unlock()
	return ix.db.Close()
}
