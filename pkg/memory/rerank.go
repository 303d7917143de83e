package memory

import "context"

// Reranker scores candidate documents against a query: the rerank stage of
// the retrieval pipeline, which retrieves more candidates than it returns
// and lets the reranker pick the most relevant (a cross-encoder, a rerank
// API, or a language model).
//
// Rerank returns one relevance score per document, in the documents' order;
// higher is more relevant. Scores are comparable within one call only. A
// document the reranker chose not to score gets math.Inf(-1). Errors:
// EUNAVAILABLE when the reranker cannot be reached, keeps throttling or
// answers in a malformed way; the pipeline then keeps the fused order.
type Reranker interface {
	Rerank(ctx context.Context, query string, docs []string) ([]float64, error)
	// Name identifies the reranker and its model, for responses and logs.
	Name() string
}
