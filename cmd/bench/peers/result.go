package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// SystemResult is what one system's run reports, in the JSON that the Go
// child (ours) and scripts/bench_peers.py (the peers) both write.
type SystemResult struct {
	System  string `json:"system"`
	Version string `json:"version,omitempty"`
	// Config states the settings the system ran with.
	Config string `json:"config,omitempty"`
	// Memories is the number of memories ingested.
	Memories int `json:"memories"`
	// IngestSeconds is the time from the first write until the system
	// answers at full speed: writes, index builds, and for some the first
	// query; IngestSteps splits it.
	IngestSeconds float64 `json:"ingest_seconds"`
	IngestSteps   []Step  `json:"ingest_steps,omitempty"`
	// NoIngest: the system has no ingest of its own (the numpy scan loads
	// a matrix); its ingest rate is not shown.
	NoIngest bool `json:"no_ingest,omitempty"`
	// RSSBytes is the process's resident set after the searches less its
	// resident set before the first write; RSSPeakBytes is the peak
	// (VmHWM) less the same baseline.
	RSSBytes     int64 `json:"rss_bytes"`
	RSSPeakBytes int64 `json:"rss_peak_bytes"`
	// Resident splits ours's resident set, less the same baseline, at the
	// points of its run where it was read (empty for the peers).
	Resident []Resident `json:"resident,omitempty"`
	// DiskBytes is the size of the files the system wrote.
	DiskBytes int64 `json:"disk_bytes"`
	// LoadBefore and LoadAfter are the 1-minute load average around the
	// system's run.
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
	Modes      []Mode  `json:"modes"`
	// Error is set when the system failed or ran out of time.
	Error string `json:"error,omitempty"`
}

// Resident is the resident set at one point of a run, less the baseline
// before the first write: RSS, its anonymous part (the process's own
// memory: the Go heap and its garbage) and its file part (pages of mapped
// files the process has touched, which the kernel may drop), from
// /proc/self/status; and the Go heap's live objects after a collection
// (0 where not read).
type Resident struct {
	At        string `json:"at"`
	RSSBytes  int64  `json:"rss_bytes"`
	AnonBytes int64  `json:"anon_bytes"`
	FileBytes int64  `json:"file_bytes"`
	LiveBytes int64  `json:"live_bytes,omitempty"`
}

// String is the note's wording of r, in MiB and in bytes per memory of n.
func (r Resident) String(n int) string {
	per := func(b int64) string {
		return fmt.Sprintf("%.0f MiB (%.0f B/memory)", float64(b)/(1<<20), float64(b)/float64(max(1, n)))
	}
	s := fmt.Sprintf("%s: RSS +%s, anon %s, file %s", r.At, per(r.RSSBytes), per(r.AnonBytes), per(r.FileBytes))
	if r.LiveBytes > 0 {
		s += ", live heap " + per(r.LiveBytes)
	}
	return s
}

// Step is one timed part of an ingest.
type Step struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
}

// The kinds of Mode.
const (
	KindKeyword = "keyword"
	KindVector  = "vector"
	KindHybrid  = "hybrid"
)

// Mode is one search mode of a system: every query's latency and result.
type Mode struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// KeywordMode names the mode of the same system whose results are a
	// hybrid mode's keyword list: the reference of its recall is that list
	// fused with the exact vector list.
	KeywordMode string `json:"keyword_mode,omitempty"`
	// LatenciesMs has one entry per query, in query order.
	LatenciesMs []float64 `json:"latencies_ms"`
	// IDs are each query's results, best first: row numbers of docs.txt.
	IDs [][]int64 `json:"ids"`
}

// Row is one line of the table.
type Row struct {
	System      string  `json:"system"`
	Mode        string  `json:"mode"`
	P50         float64 `json:"p50Ms"`
	P95         float64 `json:"p95Ms"`
	P99         float64 `json:"p99Ms"`
	Recall      float64 `json:"recallAt10"` // -1: not applicable (keyword modes)
	IngestPerS  float64 `json:"ingestPerSec"`
	RSSMiB      float64 `json:"rssMiB"`
	RSSPerMem   float64 `json:"rssBytesPerMemory"`
	DiskPerMem  float64 `json:"diskBytesPerMemory"`
	QueriesDone int     `json:"queries"`
	Error       string  `json:"error,omitempty"`
}

// percentile returns the p-th percentile of xs by the nearest rank below
// (index ⌊(n−1)·p/100⌋ of the sorted values), as bench-latency does.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*p/100)]
}

// vectorRecall is the mean over queries of |got ∩ truth| / k, got cut to
// its first k.
func vectorRecall(got, truth [][]int64, k int) float64 {
	if len(truth) == 0 {
		return 0
	}
	var sum float64
	for q := range truth {
		want := map[int64]bool{}
		for _, id := range truth[q][:min(k, len(truth[q]))] {
			want[id] = true
		}
		hit := 0
		if q < len(got) {
			for _, id := range got[q][:min(k, len(got[q]))] {
				if want[id] {
					hit++
				}
			}
		}
		sum += float64(hit) / float64(k)
	}
	return sum / float64(len(truth))
}

// hybridRecall is the recall@k of a hybrid mode against its reference: the
// RRF fusion (memory.Fuse, k = 60) of the system's own keyword list and the
// exact vector list. Reciprocal ranks tie often (third in one list and
// absent from the other is third in the other and absent from the first),
// so the reference's top k is a set of sure ids, those scoring above the
// k-th best score, and a tie at that score from which any k − |sure| ids
// are exact: a result counts when it is sure, or tied while tied places
// remain.
func hybridRecall(got, keyword, truth [][]int64, k int) float64 {
	if len(truth) == 0 {
		return 0
	}
	var sum float64
	for q := range truth {
		var kw []int64
		if q < len(keyword) {
			kw = keyword[q][:min(k, len(keyword[q]))]
		}
		ref := memory.Fuse(
			memory.RankedList{Name: "keyword", Hits: hits(kw), Weight: 1},
			memory.RankedList{Name: "vector", Hits: hits(truth[q][:min(k, len(truth[q]))]), Weight: 1})
		if len(ref) == 0 {
			continue
		}
		want := min(k, len(ref))
		floor := ref[want-1].Score
		const eps = 1e-12
		sure, tied := map[string]bool{}, map[string]bool{}
		for _, f := range ref {
			switch {
			case f.Score > floor+eps:
				sure[f.ID] = true
			case f.Score >= floor-eps:
				tied[f.ID] = true
			}
		}
		hit, tiedLeft := 0, want-len(sure)
		if q < len(got) {
			for _, id := range got[q][:min(k, len(got[q]))] {
				s := strconv.FormatInt(id, 10)
				switch {
				case sure[s]:
					hit++
				case tied[s] && tiedLeft > 0:
					hit++
					tiedLeft--
				}
			}
		}
		sum += float64(hit) / float64(want)
	}
	return sum / float64(len(truth))
}

func hits(ids []int64) []memory.Hit {
	out := make([]memory.Hit, len(ids))
	for i, id := range ids {
		out[i] = memory.Hit{ID: strconv.FormatInt(id, 10), Score: float64(len(ids) - i)}
	}
	return out
}

// rows turns the systems' results into table rows, computing each mode's
// percentiles and recall against truth.
func rows(systems []SystemResult, truth [][]int64, k int) []Row {
	var out []Row
	for _, s := range systems {
		n := float64(max(1, s.Memories))
		base := Row{System: s.System, RSSMiB: float64(s.RSSBytes) / (1 << 20), RSSPerMem: float64(s.RSSBytes) / n,
			DiskPerMem: float64(s.DiskBytes) / n, Recall: -1, Error: s.Error}
		if s.IngestSeconds > 0 && !s.NoIngest {
			base.IngestPerS = float64(s.Memories) / s.IngestSeconds
		}
		if len(s.Modes) == 0 {
			out = append(out, base)
			continue
		}
		byName := map[string]Mode{}
		for _, m := range s.Modes {
			byName[m.Name] = m
		}
		for _, m := range s.Modes {
			r := base
			r.Mode = m.Name
			r.P50, r.P95, r.P99 = percentile(m.LatenciesMs, 50), percentile(m.LatenciesMs, 95), percentile(m.LatenciesMs, 99)
			r.QueriesDone = len(m.LatenciesMs)
			switch m.Kind {
			case KindVector:
				r.Recall = vectorRecall(m.IDs, truth, k)
			case KindHybrid:
				if kw, ok := byName[m.KeywordMode]; ok {
					r.Recall = hybridRecall(m.IDs, kw.IDs, truth, k)
				}
			}
			out = append(out, r)
		}
	}
	return out
}

// writeTable prints rows as one Markdown table.
func writeTable(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "| system | mode | p50 ms | p95 ms | p99 ms | recall@10 vs exact | ingest memories/s | RSS MiB | RSS B/memory | disk B/memory |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		if r.Mode == "" {
			fmt.Fprintf(w, "| %s | failed: %s | | | | | | | | |\n", r.System, oneLine(r.Error))
			continue
		}
		recall, ingest := "—", "—"
		if r.Recall >= 0 {
			recall = fmt.Sprintf("%.3f", r.Recall)
		}
		if r.IngestPerS > 0 {
			ingest = fmt.Sprintf("%.0f", r.IngestPerS)
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %.0f | %.0f | %.0f |\n", r.System, r.Mode,
			fmtMs(r.P50), fmtMs(r.P95), fmtMs(r.P99), recall, ingest, r.RSSMiB, r.RSSPerMem, r.DiskPerMem)
	}
}

// fmtMs prints a latency with three significant digits, at least two
// decimals below 10 ms.
func fmtMs(ms float64) string {
	switch {
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 2, 64)
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64)
	}
	return strconv.FormatFloat(ms, 'f', 0, 64)
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
