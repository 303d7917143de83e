#!/usr/bin/env python3
"""The peers of cmd/bench/peers: LanceDB (FTS, vector, hybrid), Chroma
(vector), tantivy (keyword) and a numpy exact scan, each run alone in its own
process, back to back, on the corpus that cmd/bench/peers wrote to DIR:

    docs.txt            one text a line; line i is memory i
    vectors.npy         n x dims float32, unit length
    queries.txt         one query a line
    query_vectors.npy   queries x dims float32

    python3 scripts/bench_peers.py DIR --out peers.json [--systems tantivy,lancedb,chroma,numpy]

For each system it reports the same figures as the Go side: each query's
latency and top-k ids per mode (cmd/bench/peers computes the percentiles and
the recall against the exact top k), the ingest time until the system answers
at full speed, the resident set after the searches less the one before the
first write, and the size of the files it wrote. make bench-peers runs it in
a virtual environment with the versions of scripts/peers-requirements.txt.

Each library runs at its documented defaults for the index it builds; the
settings are written into the result ("config").
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

# Lance logs a deprecation warning on stderr for every query that selects
# columns; writing it would be timed with the query.
os.environ.setdefault("LANCEDB_LOG", "error")

SYSTEMS = ["tantivy", "lancedb", "chroma", "numpy"]
LIBRARIES = ["lancedb", "chromadb", "tantivy", "numpy", "pyarrow"]


def status(field):
    """A field of /proc/self/status, in bytes."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def dir_size(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def steps(*pairs):
    """The timed parts of an ingest, in order."""
    return [{"name": n, "seconds": s} for n, s in pairs]


def progress(system, what, since):
    """Notes on stderr how far a system got, so that a run stopped by the
    timeout says where."""
    print(f"bench_peers: {system}: {what} after {time.perf_counter() - since:.1f} s", file=sys.stderr, flush=True)


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()


def open_npy(path):
    """Opens a 2-D float32 .npy file for reading row blocks with plain reads
    (not a memory map, whose pages would count in the resident set)."""
    import numpy as np

    f = open(path, "rb")
    fmt = np.lib.format
    major, _ = fmt.read_magic(f)
    read = {1: fmt.read_array_header_1_0, 2: fmt.read_array_header_2_0}[major]
    shape, fortran, dtype = read(f)
    assert not fortran and dtype == np.dtype("<f4") and len(shape) == 2, (shape, fortran, dtype)
    return f, shape


def batches(d, size):
    """Yields (first id, texts, vectors) blocks of the corpus."""
    import numpy as np

    f, (n, dims) = open_npy(os.path.join(d, "vectors.npy"))
    with f, open(os.path.join(d, "docs.txt"), encoding="utf-8") as docs:
        start = 0
        while start < n:
            m = min(size, n - start)
            texts = [docs.readline().rstrip("\n") for _ in range(m)]
            vecs = np.frombuffer(f.read(m * dims * 4), dtype="<f4").reshape(m, dims)
            yield start, texts, vecs
            start += m


def measure(modes, nq, warmup):
    """Runs each mode's query function over every query, one at a time,
    after warmup untimed queries; returns the modes' results."""
    out = []
    for name, kind, fn, keyword_mode in modes:
        for i in range(min(warmup, nq)):
            fn(i)
        lat, ids = [], []
        for i in range(nq):
            t = time.perf_counter_ns()
            r = fn(i)
            lat.append((time.perf_counter_ns() - t) / 1e6)
            ids.append(r)
        m = {"name": name, "kind": kind, "latencies_ms": lat, "ids": [[int(x) for x in r] for r in ids]}
        if keyword_mode:
            m["keyword_mode"] = keyword_mode
        out.append(m)
        lat_sorted = sorted(lat)
        print(f"bench_peers: {name}: p95 {lat_sorted[int((len(lat) - 1) * 0.95)]:.2f} ms", file=sys.stderr, flush=True)
    return out


def run_tantivy(d, work, k, warmup):
    """tantivy: English analysis as scripts/tantivy_keyword.py (simple
    tokenizer, lower case, English stop words, English stemmer), BM25, one
    writer thread (one segment), count=False so block-max WAND stays on."""
    import tantivy

    queries = read_lines(os.path.join(d, "queries.txt"))
    base = status("VmRSS")
    t0 = time.perf_counter()
    an = (tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
          .filter(tantivy.Filter.lowercase())
          .filter(tantivy.Filter.stopword("english"))
          .filter(tantivy.Filter.stemmer("english"))
          .build())
    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("id", stored=True, indexed=False)
    sb.add_text_field("body", stored=False, tokenizer_name="en")
    schema = sb.build()
    index = tantivy.Index(schema, path=work)
    index.register_tokenizer("en", an)
    w = index.writer(heap_size=200_000_000, num_threads=1)
    n = 0
    for start, texts, _ in batches(d, 10_000):
        for i, t in enumerate(texts):
            w.add_document(tantivy.Document(id=start + i, body=t))
        n += len(texts)
    t1 = time.perf_counter()
    progress("tantivy", f"{n} added", t0)
    w.commit()
    w.wait_merging_threads()
    index.reload()
    s = index.searcher()
    t2 = time.perf_counter()
    parsed = [index.parse_query(q, ["body"]) for q in queries]
    found = {}

    def keyword(i):
        r = s.search(parsed[i], k, count=False)
        found[i] = [a for _, a in r.hits]
        return []

    modes = measure([("keyword (BM25)", "keyword", keyword, None)], len(queries), warmup)
    # The ids are read from the stored field after the timing: the Go side's
    # hits come with their ids, tantivy's with document addresses.
    modes[0]["ids"] = [[s.doc(a)["id"][0] for a in found[i]] for i in range(len(queries))]
    rss, hwm = status("VmRSS"), status("VmHWM")
    return {
        "system": "tantivy", "version": lib_version("tantivy"), "memories": n,
        "config": f"simple tokenizer, lower case, English stop words and stemmer, BM25; writer heap 200 MB, 1 thread; "
                  f"{s_segments(work)} segment(s); search count=False",
        "ingest_seconds": t2 - t0, "ingest_steps": steps(("add", t1 - t0), ("commit and merge", t2 - t1)),
        "rss_bytes": rss - base, "rss_peak_bytes": hwm - base, "disk_bytes": dir_size(work), "modes": modes,
    }


def s_segments(work):
    return sum(1 for f in os.listdir(work) if f.endswith(".idx"))


def run_lancedb(d, work, k, warmup):
    """LanceDB: one table (id, text, vector) written from a stream of record
    batches, a native FTS index on text (defaults: simple tokenizer, lower
    case, English stemming and stop words, ASCII folding), an IVF_HNSW_SQ
    index on vector (cosine; num_partitions, m, ef_construction at their
    defaults), queries at their defaults, hybrid fused by RRFReranker(K=60)."""
    import lancedb
    import numpy as np
    import pyarrow as pa
    from lancedb.index import FTS, HnswSq
    from lancedb.rerankers import RRFReranker

    queries = read_lines(os.path.join(d, "queries.txt"))
    qvecs = np.load(os.path.join(d, "query_vectors.npy"))
    dims = qvecs.shape[1]
    base = status("VmRSS")
    schema = pa.schema([("id", pa.int64()), ("text", pa.string()), ("vector", pa.list_(pa.float32(), dims))])

    def stream():
        for start, texts, vecs in batches(d, 50_000):
            yield pa.RecordBatch.from_arrays([
                pa.array(np.arange(start, start + len(texts), dtype=np.int64)),
                pa.array(texts, type=pa.string()),
                pa.FixedSizeListArray.from_arrays(pa.array(vecs.reshape(-1), type=pa.float32()), dims),
            ], schema=schema)

    t0 = time.perf_counter()
    db = lancedb.connect(work)
    tbl = db.create_table("docs", data=pa.RecordBatchReader.from_batches(schema, stream()), schema=schema)
    n = tbl.count_rows()
    t1 = time.perf_counter()
    progress("lancedb", f"{n} rows written", t0)
    tbl.create_index("text", config=FTS())
    t2 = time.perf_counter()
    progress("lancedb", "FTS index built", t0)
    tbl.create_index("vector", config=HnswSq(distance_type="cosine"))
    t3 = time.perf_counter()
    progress("lancedb", "vector index built", t0)
    tbl.search(qvecs[0], vector_column_name="vector").distance_type("cosine").select(["id"]).limit(k).to_arrow()
    t4 = time.perf_counter()
    reranker = RRFReranker(K=60)

    def ids(t):
        return t["id"].to_pylist()

    def fts(i):
        return ids(tbl.search(queries[i], query_type="fts").select(["id"]).limit(k).to_arrow())

    def vector(i):
        return ids(tbl.search(qvecs[i], vector_column_name="vector").distance_type("cosine").select(["id"]).limit(k).to_arrow())

    def vector_ef(i):
        return ids(tbl.search(qvecs[i], vector_column_name="vector").distance_type("cosine").ef(EF).select(["id"]).limit(k).to_arrow())

    def hybrid(i):
        q = (tbl.search(query_type="hybrid", vector_column_name="vector").vector(qvecs[i]).text(queries[i])
             .distance_type("cosine").select(["id"]).limit(k).rerank(reranker))
        return ids(q.to_arrow())

    modes = measure([
        ("FTS (BM25)", "keyword", fts, None),
        ("vector (IVF_HNSW_SQ)", "vector", vector, None),
        (f"vector (IVF_HNSW_SQ, ef {EF})", "vector", vector_ef, None),
        ("hybrid (FTS + IVF_HNSW_SQ, RRF)", "hybrid", hybrid, "FTS (BM25)"),
    ], len(queries), warmup)
    rss, hwm = status("VmRSS"), status("VmHWM")
    return {
        "system": "LanceDB", "version": lib_version("lancedb"), "memories": n,
        "config": "native FTS index (defaults: simple tokenizer, lower case, English stemmer and stop words, ASCII folding); "
                  f"IVF_HNSW_SQ, cosine, defaults (num_partitions, m 20, ef_construction 300, sample_rate 256); "
                  f"queries at their defaults, and once more with ef {EF} (the embedded index's efSearch); hybrid: FTS and vector at limit k each, RRFReranker(K=60)",
        "ingest_seconds": t4 - t0,
        "ingest_steps": steps(("write", t1 - t0), ("FTS index", t2 - t1), ("vector index", t3 - t2), ("first query", t4 - t3)),
        "rss_bytes": rss - base, "rss_peak_bytes": hwm - base, "disk_bytes": dir_size(work), "modes": modes,
    }


def run_chroma(d, work, k, warmup):
    """Chroma: a persistent client, one collection with cosine space and
    the default HNSW parameters, ids and embeddings only (no documents), in
    batches of the client's maximum batch size."""
    import chromadb
    import numpy as np
    from chromadb.config import Settings

    qvecs = np.load(os.path.join(d, "query_vectors.npy"))
    base = status("VmRSS")
    t0 = time.perf_counter()
    client = chromadb.PersistentClient(path=work, settings=Settings(anonymized_telemetry=False))
    col = client.create_collection("docs", configuration={"hnsw": {"space": "cosine"}}, embedding_function=None)
    size = client.get_max_batch_size()
    n = 0
    for start, _, vecs in batches(d, size):
        col.add(ids=[str(start + i) for i in range(len(vecs))], embeddings=vecs)
        n += len(vecs)
        if n // 100_000 != (n - len(vecs)) // 100_000:
            progress("chroma", f"{n} added", t0)
    t1 = time.perf_counter()
    col.query(query_embeddings=qvecs[:1], n_results=k, include=[])
    t2 = time.perf_counter()
    try:
        hnsw = col.configuration.get("hnsw")
    except Exception:
        hnsw = None

    def vector(i):
        return [int(x) for x in col.query(query_embeddings=qvecs[i:i + 1], n_results=k, include=[])["ids"][0]]

    modes = measure([("vector (HNSW)", "vector", vector, None)], len(qvecs), warmup)
    rss, hwm = status("VmRSS"), status("VmHWM")
    return {
        "system": "Chroma", "version": lib_version("chromadb"), "memories": n,
        "config": f"PersistentClient, cosine, HNSW defaults {json.dumps(hnsw, default=str)}; add batches of {size}",
        "ingest_seconds": t2 - t0, "ingest_steps": steps(("add", t1 - t0), ("first query", t2 - t1)),
        "rss_bytes": rss - base, "rss_peak_bytes": hwm - base, "disk_bytes": dir_size(work), "modes": modes,
    }


def run_numpy(d, work, k, warmup):
    """The exact reference: the float32 matrix in memory, one matrix-vector
    product per query (BLAS), the top k by argpartition, then sorted."""
    import numpy as np

    qvecs = np.load(os.path.join(d, "query_vectors.npy"))
    base = status("VmRSS")
    t0 = time.perf_counter()
    m = np.load(os.path.join(d, "vectors.npy"))
    t1 = time.perf_counter()

    def vector(i):
        s = m @ qvecs[i]
        top = np.argpartition(s, -k)[-k:]
        return top[np.argsort(-s[top], kind="stable")].tolist()

    modes = measure([("vector (exact scan)", "vector", vector, None)], len(qvecs), warmup)
    rss, hwm = status("VmRSS"), status("VmHWM")
    blas = ""
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg.get("Build Dependencies", {}).get("blas", {}).get("name", "")
    except Exception:
        pass
    return {
        "system": "numpy", "version": lib_version("numpy"), "memories": m.shape[0], "no_ingest": True,
        "config": f"float32 matrix @ query vector ({blas or 'BLAS'}), argpartition top k; ingest is np.load of vectors.npy; disk is that file",
        "ingest_seconds": t1 - t0, "ingest_steps": steps(("np.load", t1 - t0)),
        "rss_bytes": rss - base, "rss_peak_bytes": hwm - base,
        "disk_bytes": os.path.getsize(os.path.join(d, "vectors.npy")), "modes": modes,
    }


# EF is the HNSW search width of LanceDB's second vector row: the embedded
# index's default efSearch, for a comparison at equal width beside the
# library's default.
EF = 128

RUN = {"tantivy": run_tantivy, "lancedb": run_lancedb, "chroma": run_chroma, "numpy": run_numpy}
NAMES = {"tantivy": "tantivy", "lancedb": "LanceDB", "chroma": "Chroma", "numpy": "numpy"}
PACKAGES = {"tantivy": "tantivy", "lancedb": "lancedb", "chroma": "chromadb", "numpy": "numpy"}


def lib_version(name):
    from importlib.metadata import version

    try:
        return version(name)
    except Exception:
        return ""


def child(args):
    work = os.path.join(args.dir, "peer-" + args.child)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        before = loadavg()
        res = RUN[args.child](args.dir, work, args.k, args.warmup)
        res["load_before"], res["load_after"] = before, loadavg()
        with open(args.out, "w") as f:
            json.dump(res, f)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def parent(args):
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    for s in systems:
        if s not in RUN:
            sys.exit(f"bench_peers: unknown system {s!r} (known: {', '.join(SYSTEMS)})")
    results = []
    for s in systems:
        out = os.path.join(args.dir, f"peer-{s}.json")
        if os.path.exists(out):
            os.remove(out)
        cmd = [sys.executable, os.path.abspath(__file__), args.dir, "--child", s, "--out", out,
               "--k", str(args.k), "--warmup", str(args.warmup)]
        print(f"bench_peers: {s} (load {loadavg():.2f})", file=sys.stderr, flush=True)
        t = time.perf_counter()
        err = None
        try:
            p = subprocess.run(cmd, timeout=args.timeout or None)
            if p.returncode < 0:
                err = f"stopped by signal {-p.returncode} after {time.perf_counter() - t:.0f} s"
            elif p.returncode != 0:
                err = f"exit status {p.returncode} after {time.perf_counter() - t:.0f} s"
        except subprocess.TimeoutExpired:
            err = f"stopped after {time.perf_counter() - t:.0f} s (timeout)"
        # A child that was stopped did not clean up after itself.
        shutil.rmtree(os.path.join(args.dir, "peer-" + s), ignore_errors=True)
        if err is None:
            with open(out) as f:
                results.append(json.load(f))
            os.remove(out)
        else:
            results.append({"system": NAMES[s], "version": lib_version(PACKAGES[s]),
                            "error": err, "modes": []})
        print(f"bench_peers: {s} done in {time.perf_counter() - t:.0f} s", file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump({"python": platform.python_version(),
                   "libraries": {n: lib_version(n) for n in LIBRARIES},
                   "systems": results}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir", help="the corpus directory written by cmd/bench/peers")
    ap.add_argument("--out", required=True, help="the JSON to write")
    ap.add_argument("--systems", default=",".join(SYSTEMS), help="comma-separated, run in this order")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=20, help="untimed queries before each mode")
    ap.add_argument("--timeout", type=int, default=0, help="seconds before a system is stopped (0: none)")
    ap.add_argument("--child", choices=SYSTEMS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
    else:
        parent(args)


if __name__ == "__main__":
    main()
