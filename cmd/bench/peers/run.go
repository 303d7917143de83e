package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// options are the orchestrator's settings.
type options struct {
	Sizes   []int
	Queries int
	K       int
	Dims    int
	Batch   int
	Warmup  int
	Seed    uint64
	// Dir holds one corpus directory per size, reused by later runs; empty:
	// a temporary directory, removed at the end.
	Dir string
	// Python runs Script for the peers; empty: ours only.
	Python, Script string
	// Peers lists the peers to run (empty: the script's default, all).
	Peers string
	// Timeout bounds each system's run (0: none).
	Timeout time.Duration
	JSON    string
	// ReleaseSearch is passed to ours (oursOptions.ReleaseSearch).
	ReleaseSearch bool
	// Model embeds the corpus with the offline model (MODEL_DIR) instead
	// of the hashing embedder: its vectors are what a deployment's graph
	// holds, the hashing embedder's a harder case (see corpusEmbedder).
	Model bool
}

// Report is the JSON of a run (-json).
type Report struct {
	Machine machine      `json:"machine"`
	Sizes   []SizeReport `json:"sizes"`
}

// SizeReport is one size's figures.
type SizeReport struct {
	Corpus     corpusMeta     `json:"corpus"`
	LoadBefore string         `json:"loadBefore"`
	LoadAfter  string         `json:"loadAfter"`
	Rows       []Row          `json:"rows"`
	Systems    []SystemResult `json:"systems"` // without the per-query latencies and ids
}

// peersOutput is what scripts/bench_peers.py writes.
type peersOutput struct {
	Python    string            `json:"python"`
	Libraries map[string]string `json:"libraries"`
	Systems   []SystemResult    `json:"systems"`
}

// run measures every size: the corpus, then ours and each peer alone, one
// process each, back to back; then it prints the size's table.
func run(ctx context.Context, o options, stdout io.Writer) error {
	if o.Dir == "" {
		tmp, err := os.MkdirTemp("", "bench-peers-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		o.Dir = tmp
	}
	if o.Python != "" {
		if _, err := os.Stat(o.Script); err != nil {
			return fmt.Errorf("-script: %w", err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	emb, err := corpusEmbedder(o.Model, o.Dims)
	if err != nil {
		return err
	}
	report := Report{Machine: describeMachine(ctx, o.Python)}
	for _, n := range o.Sizes {
		dir := filepath.Join(o.Dir, strconv.Itoa(n))
		meta, err := buildCorpus(ctx, dir, emb, corpusMeta{Format: corpusFormat, Seed: o.Seed, Size: n, Queries: o.Queries, K: o.K, Dims: emb.Dimensions(), Embedder: emb.Model()})
		if err != nil {
			return fmt.Errorf("corpus of %d: %w", n, err)
		}
		truth, err := readTruth(dir)
		if err != nil {
			return err
		}
		sr := SizeReport{Corpus: meta, LoadBefore: loadAverages()}

		out := filepath.Join(dir, "ours.json")
		os.Remove(out)
		err = runChild(ctx, o.Timeout, self, "-child", "ours", "-corpus", dir, "-out", out,
			"-k", strconv.Itoa(o.K), "-batch", strconv.Itoa(o.Batch), "-warmup", strconv.Itoa(o.Warmup),
			"-release-search="+strconv.FormatBool(o.ReleaseSearch))
		sr.Systems = append(sr.Systems, readSystem(out, "agentmem index/bolt", err))

		if o.Python != "" {
			out := filepath.Join(dir, "peers.json")
			os.Remove(out)
			args := []string{o.Script, dir, "--out", out, "--k", strconv.Itoa(o.K), "--warmup", strconv.Itoa(o.Warmup)}
			if o.Timeout > 0 {
				args = append(args, "--timeout", strconv.Itoa(int(o.Timeout.Seconds())))
			}
			if o.Peers != "" {
				args = append(args, "--systems", o.Peers)
			}
			// The script bounds each peer itself; this bound is for the script.
			var bound time.Duration
			if o.Timeout > 0 {
				bound = 5*o.Timeout + time.Minute
			}
			err := runChild(ctx, bound, o.Python, args...)
			var po peersOutput
			if b, rerr := os.ReadFile(out); rerr == nil {
				if jerr := json.Unmarshal(b, &po); jerr != nil {
					err = errors.Join(err, jerr)
				}
			} else {
				err = errors.Join(err, rerr)
			}
			if err != nil && len(po.Systems) == 0 {
				po.Systems = []SystemResult{{System: "peers (scripts/bench_peers.py)", Error: err.Error()}}
			}
			sr.Systems = append(sr.Systems, po.Systems...)
			if po.Python != "" {
				report.Machine.Python = po.Python
			}
			if po.Libraries != nil {
				report.Machine.Libraries = po.Libraries
			}
		}
		sr.LoadAfter = loadAverages()
		sr.Rows = rows(sr.Systems, truth, o.K)
		printSize(stdout, report.Machine, sr)
		for i := range sr.Systems {
			for j := range sr.Systems[i].Modes {
				sr.Systems[i].Modes[j].IDs, sr.Systems[i].Modes[j].LatenciesMs = nil, nil
			}
		}
		report.Sizes = append(report.Sizes, sr)
		if o.JSON != "" { // after each size, so a long run keeps what finished
			b, _ := json.MarshalIndent(report, "", "  ")
			if err := os.WriteFile(o.JSON, append(b, '\n'), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// runChild runs name with args, its output on stderr, within timeout (0:
// none).
func runChild(ctx context.Context, timeout time.Duration, name string, args ...string) error {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("stopped after %s (timeout)", time.Since(start).Round(time.Second))
	}
	return err
}

// readSystem reads a child's SystemResult, or reports its failure.
func readSystem(path, system string, runErr error) SystemResult {
	b, err := os.ReadFile(path)
	if err == nil && runErr == nil {
		var r SystemResult
		if err = json.Unmarshal(b, &r); err == nil {
			return r
		}
	}
	return SystemResult{System: system, Error: errors.Join(runErr, err).Error()}
}

// printSize prints a size's header, table and notes.
func printSize(w io.Writer, m machine, sr SizeReport) {
	c := sr.Corpus
	fmt.Fprintf(w, "## %s memories: %d queries, k = %d, %d-dimension vectors (%s), seed %d\n\n",
		thousands(c.Size), c.Queries, c.K, c.Dims, c.Embedder, c.Seed)
	fmt.Fprintf(w, "machine: %s\n", m)
	if len(m.Libraries) > 0 {
		names := make([]string, 0, len(m.Libraries))
		for k := range m.Libraries {
			names = append(names, k)
		}
		slices.Sort(names)
		var libs []string
		for _, k := range names {
			libs = append(libs, k+" "+m.Libraries[k])
		}
		fmt.Fprintf(w, "peers: %s\n", strings.Join(libs, ", "))
	}
	fmt.Fprintf(w, "load average (1, 5, 15 min): %s before, %s after\n\n", sr.LoadBefore, sr.LoadAfter)
	writeTable(w, sr.Rows)
	fmt.Fprintln(w)
	for _, s := range sr.Systems {
		if s.Error != "" && len(s.Modes) == 0 {
			continue
		}
		fmt.Fprintf(w, "- %s", s.System)
		if s.Version != "" {
			fmt.Fprintf(w, " %s", s.Version)
		}
		fmt.Fprintf(w, " (load %.2f → %.2f): ingest %.1f s", s.LoadBefore, s.LoadAfter, s.IngestSeconds)
		if len(s.IngestSteps) > 0 {
			var parts []string
			for _, st := range s.IngestSteps {
				parts = append(parts, fmt.Sprintf("%s %.1f s", st.Name, st.Seconds))
			}
			fmt.Fprintf(w, " (%s)", strings.Join(parts, ", "))
		}
		fmt.Fprintf(w, "; peak RSS +%.0f MiB", float64(s.RSSPeakBytes)/(1<<20))
		for _, r := range s.Resident {
			fmt.Fprintf(w, "; %s", r.String(s.Memories))
		}
		if s.Config != "" {
			fmt.Fprintf(w, "; %s", s.Config)
		}
		if s.Error != "" {
			fmt.Fprintf(w, "; error: %s", oneLine(s.Error))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	slog.Info("size done", "memories", c.Size)
}

// thousands writes n with commas: 100,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
