// Package opensearch is the Index on OpenSearch (opensearch-go/v4): BM25
// over an English-analyzed text field (the same analysis as the embedded
// index), scored with the statistics of the memories the reader may see
// (score.go), and k-NN (HNSW, cosine, Lucene engine)
// over the embedding, with keyword fields for every filter.
//
// Layout: one index per mapping version, named <alias>-<timestamp>, behind an
// alias that every read and write uses, so a mapping or dimension change is
// a rebuild into a new version and an atomic alias swap (Reindex). Document
// ids are "<org>/<id>" and every request is routed by org, so identical ids
// of two orgs never meet; the org and the caller's visibility (agent and
// audiences) filter is added by this package to every query, from memory.Filter, and hits are
// checked against the org again on the way out.
//
// Hybrid search sends the keyword and the k-NN query in one _msearch round
// trip; the domain fuses the two lists by reciprocal rank fusion. The Lucene
// engine is used because it filters during the graph search (efficient
// filtering) and needs no native library.
package opensearch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/text/en"
	osgo "github.com/opensearch-project/opensearch-go/v4"
	"github.com/opensearch-project/opensearch-go/v4/opensearchapi"
	"github.com/opensearch-project/opensearch-go/v4/signer"
)

// Config configures the adapter.
type Config struct {
	URLs     []string // node addresses, e.g. http://127.0.0.1:9200
	Username string   // basic auth, optional
	Password string
	// Transport overrides the HTTP transport.
	Transport http.RoundTripper
	// Signer signs every request (SigV4 for Amazon OpenSearch Service with
	// IAM access; see NewSigV4Signer).
	Signer signer.Signer
	// Alias is the name every read and write uses (default "memories").
	Alias string
	// Dimensions of the embeddings; required to create an index.
	Dimensions int
	// Shards and Replicas of new index versions (defaults 1 and 0).
	Shards, Replicas int
	// RefreshOnWrite makes every write visible to search before it returns
	// (refresh=true). Off, writes are visible within the refresh interval
	// (1 s), which is what a production cluster wants.
	RefreshOnWrite bool
}

// Index is the OpenSearch Index. It is safe for concurrent use.
type Index struct {
	c      *opensearchapi.Client
	cfg    Config
	target string // the alias, or a concrete index during a rebuild
	// exact: the index scores keywords with the reader's statistics
	// (score.go); false for a schema 2 index until it is reindexed.
	exact *atomic.Bool
}

var _ memory.Index = (*Index)(nil)

// New connects to OpenSearch. It does not create anything; call Ensure.
func New(cfg Config) (*Index, error) {
	if len(cfg.URLs) == 0 {
		return nil, errors.New("opensearch: no URL")
	}
	if cfg.Alias == "" {
		cfg.Alias = "memories"
	}
	if cfg.Shards == 0 {
		cfg.Shards = 1
	}
	c, err := opensearchapi.NewClient(opensearchapi.Config{Client: osgo.Config{
		Addresses: cfg.URLs, Username: cfg.Username, Password: cfg.Password, Transport: cfg.Transport, Signer: cfg.Signer,
		RetryOnStatus: []int{429, 502, 503, 504}, MaxRetries: 3,
		RetryBackoff: func(attempt int) time.Duration { return time.Duration(attempt*attempt) * 100 * time.Millisecond },
	}})
	if err != nil {
		return nil, fmt.Errorf("opensearch: %w", err)
	}
	ix := &Index{c: c, cfg: cfg, target: cfg.Alias, exact: &atomic.Bool{}}
	ix.exact.Store(true)
	return ix, nil
}

// Alias returns the alias reads and writes go through.
func (ix *Index) Alias() string { return ix.cfg.Alias }

// analyzerName is the text analyzer: the same pipeline as bleve's "en"
// (Unicode word segmentation, English possessive, lower case, Snowball stop
// words, Porter stemming).
const analyzerName = "memory_english"

// mapping is the index body of a new version.
func (ix *Index) mapping() map[string]any {
	kw := map[string]any{"type": "keyword"}
	return map[string]any{
		"settings": map[string]any{"index": map[string]any{
			"knn": true, "number_of_shards": ix.cfg.Shards, "number_of_replicas": ix.cfg.Replicas,
			"refresh_interval": "1s",
			"similarity": map[string]any{
				"default": map[string]any{"type": "BM25", "k1": 1.2, "b": 0.75},
				// A term's frequency in the memory, and nothing of the
				// collection: keyword search scores with the reader's own
				// statistics (score.go).
				tfSimilarity: map[string]any{"type": "scripted", "script": map[string]any{"source": "return query.boost * doc.freq;"}},
			},
			"analysis": map[string]any{
				"filter": map[string]any{
					"memory_possessive": map[string]any{"type": "stemmer", "language": "possessive_english"},
					"memory_stop":       map[string]any{"type": "stop", "stopwords": en.SnowballStopWords()},
				},
				"analyzer": map[string]any{analyzerName: map[string]any{
					"type": "custom", "tokenizer": "standard",
					"filter": []string{"memory_possessive", "lowercase", "memory_stop", "porter_stem"},
				}},
			},
		}},
		"mappings": map[string]any{
			"dynamic":  "strict",
			"_routing": map[string]any{"required": true},
			"_meta":    map[string]any{"dimensions": ix.cfg.Dimensions, "schema": schemaVersion},
			"properties": map[string]any{
				"text": map[string]any{"type": "text", "analyzer": analyzerName, "fields": map[string]any{
					"tf": map[string]any{"type": "text", "analyzer": analyzerName, "similarity": tfSimilarity,
						"norms": false, "index_options": "freqs"},
				}},
				"org": kw, "id": kw, "agent": kw, "type": kw, "kind": kw, "room": kw, "entity": kw,
				"session": kw, "document": kw, "durability": kw, "meta": kw,
				"audience": kw, "world": kw, "len": map[string]any{"type": "integer"},
				"archived": map[string]any{"type": "boolean"},
				"created":  map[string]any{"type": "date", "format": "epoch_millis"},
				"vec": map[string]any{
					"type": "knn_vector", "dimension": ix.cfg.Dimensions,
					"method": map[string]any{"name": "hnsw", "space_type": "cosinesimil", "engine": "lucene",
						"parameters": map[string]any{"m": 16, "ef_construction": 128}},
				},
			},
		},
	}
}

// schemaVersion changes whenever mapping() does; Ensure reports a mismatch
// (but upgrades schema 2 in place, see Ensure).
const schemaVersion = 3 // 2: "meta", the memory's metadata pairs; 3: "audience", "world", "len" and "text.tf"

// visibilityFields are the fields schema 3 added that writes need: Ensure
// adds them to a schema 2 index so that it keeps taking writes and
// filtering by visibility until it is reindexed.
func visibilityFields() map[string]any {
	kw := map[string]any{"type": "keyword"}
	return map[string]any{"audience": kw, "world": kw, "len": map[string]any{"type": "integer"}}
}

// Ensure creates the first index version and the alias when the alias does
// not exist (created reports it; the caller then fills it from the store),
// and checks an existing one against the configured dimensions and schema
// (a mismatch needs Reindex).
func (ix *Index) Ensure(ctx context.Context) (created bool, err error) {
	indices, err := ix.aliasIndices(ctx)
	if err != nil {
		return false, err
	}
	if len(indices) == 0 {
		name, err := ix.CreateVersion(ctx)
		if err != nil {
			return false, err
		}
		return true, ix.swap(ctx, name, nil)
	}
	var meta map[string]struct {
		Mappings struct {
			Meta struct {
				Dimensions int `json:"dimensions"`
				Schema     int `json:"schema"`
			} `json:"_meta"`
		} `json:"mappings"`
	}
	if err := ix.do(ctx, http.MethodGet, "/"+ix.cfg.Alias+"/_mapping", nil, &meta); err != nil {
		return false, err
	}
	exact := true
	for name, m := range meta {
		switch {
		case m.Mappings.Meta.Dimensions != ix.cfg.Dimensions || (m.Mappings.Meta.Schema != schemaVersion && m.Mappings.Meta.Schema != 2):
			return false, fmt.Errorf("opensearch: index %s has %d dimensions and schema %d, the service needs %d and %d: run the reindex command",
				name, m.Mappings.Meta.Dimensions, m.Mappings.Meta.Schema, ix.cfg.Dimensions, schemaVersion)
		case m.Mappings.Meta.Schema == 2:
			// Adding fields is allowed on a live index: its old documents
			// lack them, and read as shared or agent memories of no world,
			// as they were written. Its keyword scores keep OpenSearch's
			// statistics until it is reindexed (no "text.tf" field).
			if err := ix.do(ctx, http.MethodPut, "/"+name+"/_mapping", map[string]any{"properties": visibilityFields()}, nil); err != nil {
				return false, fmt.Errorf("opensearch: add the visibility fields to %s: %w", name, err)
			}
			slog.Warn("opensearch: index of schema 2: keyword scores use statistics beyond the reader's view until the reindex command runs", "index", name)
			exact = false
		}
	}
	ix.exact.Store(exact)
	return false, nil
}

// CreateVersion creates a new, empty index version and returns its name.
func (ix *Index) CreateVersion(ctx context.Context) (string, error) {
	if ix.cfg.Dimensions <= 0 {
		return "", errors.New("opensearch: Dimensions must be set to create an index")
	}
	name := fmt.Sprintf("%s-%s", ix.cfg.Alias, time.Now().UTC().Format("20060102t150405.000000000"))
	name = strings.ReplaceAll(name, ".", "")
	return name, ix.do(ctx, http.MethodPut, "/"+name, ix.mapping(), nil)
}

// aliasIndices lists the indices behind the alias (none if it is absent).
func (ix *Index) aliasIndices(ctx context.Context) ([]string, error) {
	var res map[string]any
	err := ix.do(ctx, http.MethodGet, "/_alias/"+ix.cfg.Alias, nil, &res)
	var se *statusError
	if errors.As(err, &se) && se.status == http.StatusNotFound {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var out []string
	for name := range res {
		out = append(out, name)
	}
	return out, nil
}

// swap points the alias at index in one atomic step, removing it from old.
func (ix *Index) swap(ctx context.Context, index string, old []string) error {
	actions := []any{map[string]any{"add": map[string]any{"index": index, "alias": ix.cfg.Alias, "is_write_index": true}}}
	for _, o := range old {
		if o != index {
			actions = append(actions, map[string]any{"remove": map[string]any{"index": o, "alias": ix.cfg.Alias}})
		}
	}
	return ix.do(ctx, http.MethodPost, "/_aliases", map[string]any{"actions": actions}, nil)
}

// DeleteAll removes the alias and every index version behind it (tests).
func (ix *Index) DeleteAll(ctx context.Context) error {
	indices, err := ix.aliasIndices(ctx)
	if err != nil {
		return err
	}
	for _, name := range indices {
		if err := ix.do(ctx, http.MethodDelete, "/"+name, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// StoreBytes is the on-disk size of the primary shards behind the alias.
func (ix *Index) StoreBytes(ctx context.Context) (int64, error) {
	var st struct {
		All struct {
			Primaries struct {
				Store struct {
					Bytes int64 `json:"size_in_bytes"`
				} `json:"store"`
			} `json:"primaries"`
		} `json:"_all"`
	}
	err := ix.do(ctx, http.MethodGet, "/"+ix.cfg.Alias+"/_stats/store", nil, &st)
	return st.All.Primaries.Store.Bytes, err
}

// Refresh makes every write so far visible to search.
func (ix *Index) Refresh(ctx context.Context) error {
	return ix.do(ctx, http.MethodPost, "/"+ix.target+"/_refresh", nil, nil)
}

func docID(org, id string) string { return org + "/" + id }

func source(m *memory.Memory) map[string]any {
	doc := map[string]any{
		"text": m.KeywordText(), "org": m.OrgID, "id": m.ID, "agent": m.AgentID, "type": string(m.Type),
		"kind": string(m.Kind), "room": m.RoomID, "entity": m.EntityID, "session": m.SessionID,
		"document": m.DocumentID, "durability": string(m.Durability), "archived": m.Archived, "created": m.CreatedAt,
		"len": textLength(m.KeywordText()),
	}
	// Absent rather than "": a document written before visibilities read
	// the same (filters match "absent or in the set").
	if a := m.Audience(); a != "" {
		doc["audience"] = a
	}
	if m.WorldID != "" {
		doc["world"] = m.WorldID
	}
	if len(m.Embedding) > 0 {
		doc["vec"] = m.Embedding
	}
	if meta := memory.MetadataPairs(m.Metadata); len(meta) > 0 {
		doc["meta"] = meta
	}
	return doc
}

// Upsert implements memory.Index with one _bulk request.
func (ix *Index) Upsert(ctx context.Context, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, m := range ms {
		if m.OrgID == "" || m.ID == "" {
			return errors.New("opensearch: memory without org or id")
		}
		if len(m.Embedding) != 0 && len(m.Embedding) != ix.cfg.Dimensions {
			return fmt.Errorf("opensearch: embedding of %d dimensions, index has %d", len(m.Embedding), ix.cfg.Dimensions)
		}
		enc.Encode(map[string]any{"index": map[string]any{"_index": ix.target, "_id": docID(m.OrgID, m.ID), "routing": m.OrgID}})
		enc.Encode(source(m))
	}
	return ix.bulk(ctx, &body)
}

// Delete implements memory.Index.
func (ix *Index) Delete(ctx context.Context, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	for _, id := range ids {
		enc.Encode(map[string]any{"delete": map[string]any{"_index": ix.target, "_id": docID(orgID, id), "routing": orgID}})
	}
	return ix.bulk(ctx, &body)
}

func (ix *Index) bulk(ctx context.Context, body io.Reader) error {
	refresh := "false"
	if ix.cfg.RefreshOnWrite {
		refresh = "true"
	}
	var res struct {
		Errors bool `json:"errors"`
		Items  []map[string]struct {
			Status int `json:"status"`
			Error  *struct {
				Type   string `json:"type"`
				Reason string `json:"reason"`
			} `json:"error"`
		} `json:"items"`
	}
	if err := ix.doRaw(ctx, http.MethodPost, "/_bulk?refresh="+refresh, "application/x-ndjson", body, &res); err != nil {
		return err
	}
	if !res.Errors {
		return nil
	}
	for _, item := range res.Items {
		for op, r := range item {
			if r.Error != nil && !(op == "delete" && r.Status == http.StatusNotFound) {
				return fmt.Errorf("opensearch: bulk %s: %s: %s", op, r.Error.Type, r.Error.Reason)
			}
		}
	}
	return nil
}

// visibility renders who may see (f's org, Viewer and Audiences) as bool
// filter clauses; the org term comes first. A memory with no audience
// (absent: written before visibilities, or shared and agent ones) passes
// any audience set, as Filter.Match.
func visibility(f memory.Filter) []any {
	out := []any{map[string]any{"term": map[string]any{"org": f.OrgID}}}
	if f.Viewer != "" {
		out = append(out, map[string]any{"terms": map[string]any{"agent": []string{"", f.Viewer}}})
	}
	if f.Audiences != nil {
		should := []any{map[string]any{"bool": map[string]any{"must_not": map[string]any{"exists": map[string]any{"field": "audience"}}}}}
		if len(f.Audiences) > 0 {
			should = append(should, map[string]any{"terms": map[string]any{"audience": f.Audiences}})
		}
		out = append(out, map[string]any{"bool": map[string]any{"should": should, "minimum_should_match": 1}})
	}
	return out
}

// filters renders f as bool filter clauses: visibility, then what f
// narrows.
func filters(f memory.Filter) []any {
	term := func(field, v string) any { return map[string]any{"term": map[string]any{field: v}} }
	out := visibility(f)
	switch f.AgentID {
	case "":
	case memory.OrgScope:
		out = append(out, term("agent", ""))
	default:
		out = append(out, term("agent", f.AgentID))
	}
	if len(f.Types) > 0 {
		out = append(out, map[string]any{"terms": map[string]any{"type": f.Types}})
	}
	if len(f.Kinds) > 0 {
		out = append(out, map[string]any{"terms": map[string]any{"kind": f.Kinds}})
	}
	for _, p := range [][2]string{{"durability", string(f.Durability)}, {"room", f.RoomID}, {"world", f.WorldID}, {"entity", f.EntityID},
		{"session", f.SessionID}, {"document", f.DocumentID}} {
		if p[1] != "" {
			out = append(out, term(p[0], p[1]))
		}
	}
	if f.Start != 0 || f.End != 0 {
		r := map[string]any{"format": "epoch_millis"}
		if f.Start != 0 {
			r["gte"] = f.Start
		}
		if f.End != 0 {
			r["lt"] = f.End
		}
		out = append(out, map[string]any{"range": map[string]any{"created": r}})
	}
	for _, k := range f.Metadata.Keys() {
		out = append(out, map[string]any{"terms": map[string]any{"meta": f.Metadata.Pairs(k)}})
	}
	if !f.IncludeArchived {
		out = append(out, map[string]any{"term": map[string]any{"archived": false}})
	}
	return out
}

// matchQuery is keyword search scored by OpenSearch's BM25: statistics of
// the whole shard. Only a schema 2 index, awaiting its reindex, uses it.
func matchQuery(q memory.IndexQuery) map[string]any {
	return map[string]any{
		"size": q.K, "_source": false, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{
			"must":   map[string]any{"match": map[string]any{"text": map[string]any{"query": q.Text}}},
			"filter": filters(q.Filter),
		}},
	}
}

func semanticQuery(q memory.IndexQuery) map[string]any {
	return map[string]any{
		"size": q.K, "_source": false, "track_total_hits": false,
		"query": map[string]any{"knn": map[string]any{"vec": map[string]any{
			"vector": q.Vector, "k": q.K,
			"filter": map[string]any{"bool": map[string]any{"filter": filters(q.Filter)}},
		}}},
	}
}

type searchResult struct {
	Status int `json:"status"`
	Error  any `json:"error"`
	Hits   struct {
		Hits []struct {
			ID    string  `json:"_id"`
			Score float64 `json:"_score"`
		} `json:"hits"`
	} `json:"hits"`
}

// Search implements memory.Index: the requested modes in one _msearch.
func (ix *Index) Search(ctx context.Context, q memory.IndexQuery) (memory.IndexResult, error) {
	var res memory.IndexResult
	if q.Filter.OrgID == "" {
		return res, errors.New("opensearch: search without org")
	}
	if q.K <= 0 || (q.Text == "" && q.Vector == nil) {
		return res, nil
	}
	if q.Vector != nil && len(q.Vector) != ix.cfg.Dimensions {
		return res, fmt.Errorf("opensearch: query vector of %d dimensions, index has %d", len(q.Vector), ix.cfg.Dimensions)
	}
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	header := map[string]any{"index": ix.target, "routing": q.Filter.OrgID}
	var modes []string
	if q.Text != "" {
		kq, err := ix.keywordQuery(ctx, q)
		if err != nil {
			return res, err
		}
		if kq != nil {
			enc.Encode(header)
			enc.Encode(kq)
			modes = append(modes, "keyword")
		}
	}
	if len(modes) == 0 && q.Vector == nil {
		return res, nil // no query word that the reader's memories hold
	}
	if q.Vector != nil {
		enc.Encode(header)
		enc.Encode(semanticQuery(q))
		modes = append(modes, "semantic")
	}
	var out struct {
		Responses []searchResult `json:"responses"`
	}
	if err := ix.doRaw(ctx, http.MethodPost, "/_msearch", "application/x-ndjson", &body, &out); err != nil {
		return res, err
	}
	if len(out.Responses) != len(modes) {
		return res, fmt.Errorf("opensearch: msearch returned %d responses for %d queries", len(out.Responses), len(modes))
	}
	prefix := q.Filter.OrgID + "/"
	for i, r := range out.Responses {
		if r.Error != nil {
			js, _ := json.Marshal(r.Error)
			return res, fmt.Errorf("opensearch: %s search: %s", modes[i], js)
		}
		hits := make([]memory.Hit, 0, len(r.Hits.Hits))
		for _, h := range r.Hits.Hits {
			if !strings.HasPrefix(h.ID, prefix) { // cannot happen with the org filter; never trust it blindly
				continue
			}
			score := h.Score
			if modes[i] == "semantic" {
				score = 2*score - 1 // the Lucene engine reports (1 + cosine) / 2
			}
			hits = append(hits, memory.Hit{ID: h.ID[len(prefix):], Score: score})
		}
		if modes[i] == "keyword" {
			res.Keyword = hits
		} else {
			res.Semantic = hits
		}
	}
	return res, nil
}

// statusError is a non-2xx answer.
type statusError struct {
	status int
	body   string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("opensearch: status %d: %s", e.status, e.body)
}

func (ix *Index) do(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		js, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(js)
	}
	return ix.doRaw(ctx, method, path, "application/json", rd, out)
}

func (ix *Index) doRaw(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, path, body)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := ix.c.Client.Perform(req)
	if err != nil {
		return fmt.Errorf("opensearch: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return err
	}
	if res.StatusCode >= 300 {
		if len(raw) > 2000 {
			raw = raw[:2000]
		}
		return &statusError{status: res.StatusCode, body: string(raw)}
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("opensearch: decode %s %s: %w", method, path, err)
		}
	}
	return nil
}
