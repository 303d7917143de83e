#!/usr/bin/env python3
"""Reference for BenchmarkKeyword in index/bolt: index the benchmark's texts
with tantivy (lower case, English stop words, English stemming, BM25) and time
the same queries, top 10, one at a time on one thread.

    KEYWORD_CORPUS=DIR go test -run '^$' -bench Keyword ./pkg/index/bolt/
    python3 scripts/tantivy_keyword.py DIR
"""
import os, sys, tempfile, time
import tantivy

d = sys.argv[1]
docs = open(os.path.join(d, "docs.txt")).read().splitlines()
queries = open(os.path.join(d, "queries.txt")).read().splitlines()

an = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
      .filter(tantivy.Filter.lowercase())
      .filter(tantivy.Filter.stopword("english"))
      .filter(tantivy.Filter.stemmer("english"))
      .build())
sb = tantivy.SchemaBuilder()
sb.add_text_field("body", stored=False, tokenizer_name="en")
schema = sb.build()
index = tantivy.Index(schema, path=tempfile.mkdtemp())
index.register_tokenizer("en", an)
w = index.writer(heap_size=200_000_000, num_threads=1)
for t in docs:
    w.add_document(tantivy.Document(body=t))
w.commit()
w.wait_merging_threads()
index.reload()
s = index.searcher()
parsed = [index.parse_query(q, ["body"]) for q in queries]
rounds = int(os.environ.get("ROUNDS", "10"))
lat, hits = [], 0
for _ in range(rounds):
    for q in parsed:
        t = time.perf_counter_ns()
        r = s.search(q, 10, count=False)  # counting every match would turn block-max WAND off
        lat.append(time.perf_counter_ns() - t)
        hits += len(r.hits)
assert hits > 0
lat.sort()
print(f"tantivy {tantivy.__version__ if hasattr(tantivy, '__version__') else ''} docs={len(docs)} queries={len(lat)} segments={s.num_segments} "
      f"p50={lat[len(lat)//2]/1000:.0f}µs p95={lat[len(lat)*95//100]/1000:.0f}µs")
