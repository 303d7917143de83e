package main

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/memory"
)

func TestNPYRoundTrip(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name       string
		descr      string
		rows, cols int
	}{
		{"float32 matrix", "<f4", 3, 384},
		{"int64 truth", "<i8", 5, 10},
		{"one row", "<f4", 1, 1},
		{"large shape in the header", "<i8", 123456, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".npy")
			w, err := createNPY(path, tc.descr, tc.rows, tc.cols)
			if err != nil {
				t.Fatal(err)
			}
			want := make([][]float64, tc.rows)
			for i := range want {
				want[i] = make([]float64, tc.cols)
				for j := range want[i] {
					want[i][j] = float64(i*tc.cols+j) - 0.5
					if tc.descr == "<i8" {
						want[i][j] = float64(int64(i*tc.cols+j) - 7)
					}
				}
				if tc.descr == "<f4" {
					row := make([]float32, tc.cols)
					for j := range row {
						row[j] = float32(want[i][j])
					}
					err = w.Float32s(row)
				} else {
					row := make([]int64, tc.cols)
					for j := range row {
						row[j] = int64(want[i][j])
					}
					err = w.Int64s(row)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// numpy.load's requirements: the magic, version 1.0, a header
			// ending in a newline, the data aligned on 64 bytes.
			hlen := int(raw[8]) | int(raw[9])<<8
			if !bytes.HasPrefix(raw, []byte("\x93NUMPY\x01\x00")) || (10+hlen)%64 != 0 || raw[10+hlen-1] != '\n' {
				t.Fatalf("header %q: not a version 1.0 .npy header aligned on 64 bytes", raw[:10+hlen])
			}
			size := 4
			if tc.descr == "<i8" {
				size = 8
			}
			if got := len(raw) - 10 - hlen; got != tc.rows*tc.cols*size {
				t.Fatalf("%d data bytes, want %d", got, tc.rows*tc.cols*size)
			}
			r, err := openNPY(path)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if r.descr != tc.descr || r.rows != tc.rows || r.cols != tc.cols {
				t.Fatalf("read %s %d×%d, want %s %d×%d", r.descr, r.rows, r.cols, tc.descr, tc.rows, tc.cols)
			}
			for i := range want {
				got := make([]float64, tc.cols)
				if tc.descr == "<f4" {
					row := make([]float32, tc.cols)
					err = r.Float32s(row)
					for j, x := range row {
						got[j] = float64(x)
					}
				} else {
					row := make([]int64, tc.cols)
					err = r.Int64s(row)
					for j, x := range row {
						got[j] = float64(x)
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want[i]) {
					t.Fatalf("row %d: %v, want %v", i, got[:min(4, len(got))], want[i][:min(4, len(got))])
				}
			}
			if err := r.Float32s(make([]float32, tc.cols)); err == nil {
				t.Fatal("read past the last row")
			}
		})
	}
}

func TestNPYWriterChecksRows(t *testing.T) {
	w, err := createNPY(filepath.Join(t.TempDir(), "x.npy"), "<f4", 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Float32s([]float32{1, 2, 3}); err == nil {
		t.Error("a row of the wrong width was written")
	}
	if err := w.Int64s([]int64{1, 2}); err == nil {
		t.Error("an int64 row went into a float32 array")
	}
	if err := w.Float32s([]float32{1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close accepted a file with a row missing")
	}
}

func TestParseNPYHeader(t *testing.T) {
	tests := []struct {
		header     string
		descr      string
		rows, cols int
		bad        bool
	}{
		{header: "{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 384), }", descr: "<f4", rows: 100000, cols: 384},
		{header: "{'descr':'<i8','fortran_order':False,'shape':(300,10)}    \n", descr: "<i8", rows: 300, cols: 10},
		{header: "{'fortran_order': False, 'shape': (2, 3), 'descr': '<f4', }", descr: "<f4", rows: 2, cols: 3},
		{header: "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", bad: true},
		{header: "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", bad: true},
		{header: "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", bad: true},
		{header: "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", bad: true},
		{header: "{'descr': '<f4', 'fortran_order': False}", bad: true},
	}
	for _, tc := range tests {
		descr, rows, cols, err := parseNPYHeader(tc.header)
		if tc.bad {
			if err == nil {
				t.Errorf("%s: accepted", tc.header)
			}
			continue
		}
		if err != nil || descr != tc.descr || rows != tc.rows || cols != tc.cols {
			t.Errorf("%s: %s %d×%d %v, want %s %d×%d", tc.header, descr, rows, cols, err, tc.descr, tc.rows, tc.cols)
		}
	}
}

func TestExactTopK(t *testing.T) {
	const n, nq, dims, k = 3000, 7, 16, 10
	rng := rand.New(rand.NewPCG(3, 4))
	unit := func() []float32 {
		v := make([]float32, dims)
		var s float64
		for i := range v {
			v[i] = float32(rng.NormFloat64())
			s += float64(v[i]) * float64(v[i])
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(s))
		}
		return v
	}
	var docs, queries []float32
	for range n {
		docs = append(docs, unit()...)
	}
	copy(docs[5*dims:6*dims], docs[9*dims:10*dims]) // a tie: the lower id comes first
	for range nq {
		queries = append(queries, unit()...)
	}
	copy(queries[:dims], docs[9*dims:10*dims])
	ids, scores := exactTopK(docs, queries, dims, k)
	for q := range nq {
		type pair struct {
			id int64
			s  float32
		}
		all := make([]pair, n)
		for i := range all {
			var s float32
			for j := range dims {
				s += queries[q*dims+j] * docs[i*dims+j]
			}
			all[i] = pair{int64(i), s}
		}
		slices.SortFunc(all, func(a, b pair) int {
			switch {
			case a.s > b.s:
				return -1
			case a.s < b.s:
				return 1
			}
			return int(a.id - b.id)
		})
		for j := range k {
			if math.Abs(float64(scores[q][j]-all[j].s)) > 1e-5 {
				t.Fatalf("query %d, rank %d: score %v, want %v", q, j, scores[q][j], all[j].s)
			}
		}
		if q == 0 && (ids[0][0] != 5 || ids[0][1] != 9) {
			t.Errorf("query equal to rows 5 and 9: top two %v, want [5 9]", ids[0][:2])
		}
	}
}

func TestVectorRecall(t *testing.T) {
	truth := [][]int64{{1, 2, 3, 4}, {5, 6, 7, 8}}
	tests := []struct {
		name string
		got  [][]int64
		want float64
	}{
		{"exact", [][]int64{{4, 3, 2, 1}, {5, 6, 7, 8}}, 1},
		{"half", [][]int64{{1, 2, 9, 10}, {5, 6, 11, 12}}, 0.5},
		{"short results count as misses", [][]int64{{1}, {}}, 0.125},
		{"only the first k count", [][]int64{{9, 9, 9, 9, 1, 2}, {5, 6, 7, 8, 1}}, 0.5},
		{"a query missing", [][]int64{{1, 2, 3, 4}}, 0.5},
	}
	for _, tc := range tests {
		if got := vectorRecall(tc.got, truth, 4); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: recall %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestHybridRecall(t *testing.T) {
	// Keyword list 1 2 3, exact vectors 3 4 5. RRF (k = 60): 3 is in both
	// (1/63 + 1/61), then 1 (1/61), then 2 and 4 tie (1/62), then 5 (1/63).
	keyword := [][]int64{{1, 2, 3}}
	truth := [][]int64{{3, 4, 5}}
	tests := []struct {
		name string
		got  [][]int64
		k    int
		want float64
	}{
		{"the reference", [][]int64{{3, 1, 4}}, 3, 1},
		{"the other side of the tie", [][]int64{{3, 1, 2}}, 3, 1},
		{"the order does not matter", [][]int64{{2, 3, 1}}, 3, 1},
		{"below the tie", [][]int64{{3, 1, 5}}, 3, 2.0 / 3},
		{"an id in neither list", [][]int64{{3, 1, 99}}, 3, 2.0 / 3},
		{"both tied ids do not replace a sure one", [][]int64{{1, 2, 4}}, 3, 2.0 / 3},
		{"k = 2 has no tie", [][]int64{{3, 4}}, 2, 0.5},
		{"no results", [][]int64{{}}, 3, 0},
	}
	for _, tc := range tests {
		if got := hybridRecall(tc.got, keyword, truth, tc.k); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: recall %v, want %v", tc.name, got, tc.want)
		}
	}
	// Disjoint lists: 1 and 4 tie for the first place.
	for _, got := range [][]int64{{1}, {4}} {
		if r := hybridRecall([][]int64{got}, [][]int64{{1, 2}}, [][]int64{{4, 5}}, 1); r != 1 {
			t.Errorf("k = 1, %v: recall %v, want 1 (a tie)", got, r)
		}
	}
	// A query without keyword hits: the reference is the exact vector list.
	if r := hybridRecall([][]int64{{3, 4, 5}}, [][]int64{{}}, truth, 3); r != 1 {
		t.Errorf("no keyword hits: recall %v, want 1", r)
	}
}

func TestPercentile(t *testing.T) {
	xs := make([]float64, 300)
	for i := range xs {
		xs[i] = float64(300 - i) // 300 … 1, unsorted
	}
	tests := []struct {
		p, want float64
	}{{50, 150}, {95, 285}, {99, 297}, {100, 300}, {0, 1}}
	for _, tc := range tests {
		if got := percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%v = %v, want %v", tc.p, got, tc.want)
		}
	}
	if xs[0] != 300 {
		t.Error("percentile sorted its input")
	}
	if percentile(nil, 50) != 0 {
		t.Error("percentile of nothing")
	}
}

func TestRowsAndTable(t *testing.T) {
	truth := [][]int64{{1, 2}, {3, 4}}
	systems := []SystemResult{
		{System: "ours", Memories: 1000, IngestSeconds: 2, RSSBytes: 10 << 20, DiskBytes: 2_000_000, Modes: []Mode{
			{Name: "keyword", Kind: KindKeyword, LatenciesMs: []float64{1, 2}, IDs: [][]int64{{1, 9}, {3, 4}}},
			{Name: "vector", Kind: KindVector, LatenciesMs: []float64{0.5, 12.345}, IDs: [][]int64{{1, 2}, {3, 9}}},
			{Name: "hybrid", Kind: KindHybrid, KeywordMode: "keyword", LatenciesMs: []float64{150, 250}, IDs: [][]int64{{1, 2}, {3, 4}}},
		}},
		{System: "scan", Memories: 1000, NoIngest: true, IngestSeconds: 1, RSSBytes: 1 << 20, DiskBytes: 1_536_000, Modes: []Mode{
			{Name: "exact", Kind: KindVector, LatenciesMs: []float64{3}, IDs: truth},
		}},
		{System: "broken", Error: "stopped after 60 s (timeout)\nlong trace"},
	}
	var b strings.Builder
	writeTable(&b, rows(systems, truth, 2))
	want := `| system | mode | p50 ms | p95 ms | p99 ms | recall@10 vs exact | ingest memories/s | RSS MiB | RSS B/memory | disk B/memory |
|---|---|---:|---:|---:|---:|---:|---:|---:|---:|
| ours | keyword | 1.00 | 1.00 | 1.00 | — | 500 | 10 | 10486 | 2000 |
| ours | vector | 0.50 | 0.50 | 0.50 | 0.750 | 500 | 10 | 10486 | 2000 |
| ours | hybrid | 150 | 150 | 150 | 1.000 | 500 | 10 | 10486 | 2000 |
| scan | exact | 3.00 | 3.00 | 3.00 | 1.000 | — | 1 | 1049 | 1536 |
| broken | failed: stopped after 60 s (timeout) long trace | | | | | | | | |
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{100, "100"}, {1000, "1,000"}, {100000, "100,000"}, {1000000, "1,000,000"}} {
		if got := thousands(tc.n); got != tc.want {
			t.Errorf("thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ms   float64
		want string
	}{{0.123, "0.12"}, {9.999, "10.00"}, {12.34, "12.3"}, {123.4, "123"}} {
		if got := fmtMs(tc.ms); got != tc.want {
			t.Errorf("fmtMs(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
}

// TestCorpusReusedOnlyWithItsEmbedder builds a small corpus, reuses it with
// the same embedder and rebuilds it with another of the same width, and
// checks that -model fails, rather than falls back, without the model.
func TestCorpusReusedOnlyWithItsEmbedder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	want := func(e memory.Embedder) corpusMeta {
		return corpusMeta{Format: corpusFormat, Seed: 3, Size: 40, Queries: 4, K: 5, Dims: e.Dimensions(), Embedder: e.Model()}
	}
	a, b := hashing.New(24), renamed{hashing.New(24), "other-24"}
	cases := []struct {
		name       string
		emb        memory.Embedder
		wantReused bool
	}{
		{"first build", a, false},
		{"same embedder: reused", a, true},
		{"another embedder: rebuilt", b, false},
		{"back to the first: rebuilt", a, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vecs := filepath.Join(dir, fileVectors)
			before, _ := os.Stat(vecs)
			meta, err := buildCorpus(ctx, dir, c.emb, want(c.emb))
			if err != nil {
				t.Fatal(err)
			}
			after, err := os.Stat(vecs)
			if err != nil {
				t.Fatal(err)
			}
			reused := before != nil && os.SameFile(before, after) && before.ModTime().Equal(after.ModTime())
			if reused != c.wantReused || meta.Embedder != c.emb.Model() {
				t.Fatalf("reused %v (want %v), embedder %q (want %q)", reused, c.wantReused, meta.Embedder, c.emb.Model())
			}
		})
	}
	t.Setenv("MODEL_DIR", t.TempDir())
	if _, err := corpusEmbedder(true, 384); err == nil {
		t.Fatal("-model without the model's files: no error")
	}
	if e, err := corpusEmbedder(false, 24); err != nil || e.Dimensions() != 24 {
		t.Fatalf("hashing embedder: %v, %v", e, err)
	}
}

// renamed is an embedder under another model name.
type renamed struct {
	memory.Embedder
	name string
}

func (r renamed) Model() string { return r.name }
