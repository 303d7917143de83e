package opensearch

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"net/url"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Keyword scores that leak nothing. OpenSearch's BM25 weighs a term by its
// document frequency among the documents of the shard, and normalises by
// the shard's average length: every org's memories routed to the shard,
// and inside an org every agent's, room's and user's, whatever the filter.
// A score then tells a reader whether a word occurs in memories it may not
// see. So keyword search scores BM25 itself, with the statistics of what
// the reader may see (its org, Viewer and Audiences: Filter.Match), in
// three round trips:
//
//  1. _analyze the query with the index's analyzer: its terms and their
//     frequencies in the query;
//  2. count, over the reader's visibility filter, the memories, the sum of
//     their lengths (the "len" field, textLength) and, per term, how many
//     hold it (a filter aggregation each);
//  3. search: one clause per term on "text.tf", whose similarity scores a
//     memory by the term's frequency alone (tfSimilarity), wrapped in a
//     script_score that applies BM25's saturation and length
//     normalisation with the reader's average length and the term's idf
//     as parameters; the clauses are summed (bool should) under the
//     query's filter.
//
// The score of a visible memory is then a function of its own text and of
// the visible memories' statistics only (the Index contract's "keyword scores leak nothing"). It is the
// embedded index's BM25 to float rounding, lengths included (the embedded
// index uses exact lengths, where Lucene's BM25 decodes them from one-byte
// norms). The cost is two more round trips per keyword search, and a
// second inverted field of frequencies without positions or norms.

// tfSimilarity is the similarity of "text.tf".
const tfSimilarity = "memory_tf"

// bm25Script is BM25's term factor, weighted: _score is the term's
// frequency in the memory (tfSimilarity, boost 1).
const bm25Script = `double tf = _score; double dl = doc['len'].size() == 0 ? params.avgdl : doc['len'].value;` +
	` return params.w * tf / (tf + params.k1 * (1 - params.b + params.b * dl / params.avgdl));`

// k1 and b are BM25's parameters (Lucene's defaults, and the embedded
// index's).
const (
	k1 = 1.2
	b  = 0.75
)

// keywordQuery returns the keyword search of q, nil when no memory the
// reader may see holds any of its terms.
func (ix *Index) keywordQuery(ctx context.Context, q memory.IndexQuery) (map[string]any, error) {
	if !ix.exact.Load() {
		return matchQuery(q), nil
	}
	terms, qtfs, err := ix.analyze(ctx, q.Text)
	if err != nil || len(terms) == 0 {
		return nil, err
	}
	st, err := ix.visibleStats(ctx, q.Filter, terms)
	if err != nil || st.n == 0 {
		return nil, err
	}
	n, avgdl := float64(st.n), st.total/float64(st.n)
	if avgdl <= 0 {
		avgdl = 1 // memories without words: any length is as long as the average
	}
	var should []any
	for i, t := range terms {
		df := float64(st.df[i])
		if df == 0 {
			continue
		}
		w := math.Log(1+(n-df+0.5)/(df+0.5)) * (k1 + 1) * float64(qtfs[i])
		should = append(should, map[string]any{"script_score": map[string]any{
			"query": map[string]any{"term": map[string]any{"text.tf": t}},
			"script": map[string]any{"source": bm25Script,
				"params": map[string]any{"w": w, "k1": k1, "b": b, "avgdl": avgdl}},
		}})
	}
	if len(should) == 0 {
		return nil, nil
	}
	return map[string]any{
		"size": q.K, "_source": false, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{
			"should": should, "minimum_should_match": 1,
			"filter": filters(q.Filter),
		}},
	}, nil
}

// analyze returns the distinct terms of text as the index analyses it, in
// order, with their frequencies.
func (ix *Index) analyze(ctx context.Context, text string) (terms []string, tfs []int, err error) {
	var res struct {
		Tokens []struct {
			Token string `json:"token"`
		} `json:"tokens"`
	}
	if err := ix.do(ctx, http.MethodPost, "/"+url.PathEscape(ix.target)+"/_analyze",
		map[string]any{"analyzer": analyzerName, "text": text}, &res); err != nil {
		return nil, nil, err
	}
	at := map[string]int{}
	for _, t := range res.Tokens {
		if i, ok := at[t.Token]; ok {
			tfs[i]++
			continue
		}
		at[t.Token] = len(terms)
		terms = append(terms, t.Token)
		tfs = append(tfs, 1)
	}
	return terms, tfs, nil
}

// stats are the keyword statistics of the memories one reader may see.
type stats struct {
	n     int64
	total float64 // tokens
	df    []int64 // by term
}

// visibleStats counts the memories f's reader may see (visibility, not
// what f narrows: a narrowing is the reader's choice, and scores as the
// view it narrows), their tokens, and how many hold each term.
func (ix *Index) visibleStats(ctx context.Context, f memory.Filter, terms []string) (stats, error) {
	aggs := map[string]any{"len": map[string]any{"sum": map[string]any{"field": "len"}}}
	for i, t := range terms {
		aggs[fmt.Sprintf("t%d", i)] = map[string]any{"filter": map[string]any{"term": map[string]any{"text.tf": t}}}
	}
	body := map[string]any{
		"size": 0, "track_total_hits": true,
		"query": map[string]any{"bool": map[string]any{"filter": visibility(f)}},
		"aggs":  aggs,
	}
	var res struct {
		Hits struct {
			Total struct {
				Value int64 `json:"value"`
			} `json:"total"`
		} `json:"hits"`
		Aggregations map[string]struct {
			Value    float64 `json:"value"`
			DocCount int64   `json:"doc_count"`
		} `json:"aggregations"`
	}
	path := "/" + url.PathEscape(ix.target) + "/_search?routing=" + url.QueryEscape(f.OrgID)
	if err := ix.do(ctx, http.MethodPost, path, body, &res); err != nil {
		return stats{}, err
	}
	st := stats{n: res.Hits.Total.Value, total: res.Aggregations["len"].Value, df: make([]int64, len(terms))}
	for i := range terms {
		st.df[i] = res.Aggregations[fmt.Sprintf("t%d", i)].DocCount
	}
	return st, nil
}
