// Command bench-extract measures fact extraction on LoCoMo-format
// conversations. Their session observations (per session and speaker,
// facts written by an LLM, each with the dia_id of the turns it comes from)
// are the reference. Every extractor named runs over each session's turns
// (the session is one extraction job, as a conversation posted at once),
// and the benchmark reports:
//
//   - recall: the share of observations matched by an extracted fact;
//   - precision: the share of extracted facts that match an observation;
//   - facts per turn and extraction time per turn.
//
// A fact matches an observation when it cites one of the observation's
// turns and the cosine similarity of their embeddings (stored-text
// embeddings of the repository's embedder: the offline bge-small model when
// MODEL_DIR holds it, else the hashing embedder) is at least the stated
// threshold (-threshold; by default 0.80 for bge-small and 0.50 for the
// hashing embedder, which compares words, not meaning). The output also
// gives recall and precision at neighbouring thresholds, and the turn
// coverage (observations whose turn yielded any fact), so that a result
// does not hinge on one cut-off.
//
// The extractors: "baseline" is the offline extractor as it was before
// issue 15 (local-patterns-v1, frozen in this command), "local" the
// current offline extractor, "configured" whatever extractor the
// configuration wires into the extraction pipeline (an LLM one when set).
//
//	go run ./cmd/bench/extract -data '../shared/bench/locomo/*.json' -json extract-results.json
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/locomo"
	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// counts are the tallies of one extractor on one conversation (or all).
type counts struct {
	Observations int           `json:"observations"`
	Matched      map[int]int   `json:"-"` // observations matched, by threshold index
	Covered      int           `json:"-"` // observations whose turn has a fact
	Facts        int           `json:"facts"`
	Correct      map[int]int   `json:"-"` // facts matching an observation, by threshold index
	Turns        int           `json:"turns"`
	Elapsed      time.Duration `json:"-"`
}

func newCounts() *counts { return &counts{Matched: map[int]int{}, Correct: map[int]int{}} }

func (c *counts) add(o *counts) {
	c.Observations += o.Observations
	c.Covered += o.Covered
	c.Facts += o.Facts
	c.Turns += o.Turns
	c.Elapsed += o.Elapsed
	for k, v := range o.Matched {
		c.Matched[k] += v
	}
	for k, v := range o.Correct {
		c.Correct[k] += v
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// json renders the counts; main is the index of the stated threshold.
func (c *counts) json(thresholds []float64, main int) map[string]any {
	sweep := map[string]any{}
	for i, t := range thresholds {
		sweep[strconv.FormatFloat(t, 'f', 2, 64)] = map[string]float64{
			"recall": ratio(c.Matched[i], c.Observations), "precision": ratio(c.Correct[i], c.Facts)}
	}
	return map[string]any{
		"recall": ratio(c.Matched[main], c.Observations), "precision": ratio(c.Correct[main], c.Facts),
		"turn_coverage": ratio(c.Covered, c.Observations),
		"observations":  c.Observations, "facts": c.Facts, "turns": c.Turns,
		"facts_per_turn": ratio(c.Facts, c.Turns),
		"ms_per_turn":    float64(c.Elapsed.Microseconds()) / 1000 / float64(max(c.Turns, 1)),
		"by_threshold":   sweep,
	}
}

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func shares(a, b []string) bool {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return true
			}
		}
	}
	return false
}

// embedAll embeds texts as stored texts, in batches.
func embedAll(ctx context.Context, e memory.Embedder, texts []string) ([][]float32, error) {
	var out [][]float32
	for i := 0; i < len(texts); i += 64 {
		vs, err := e.Embed(ctx, texts[i:min(i+64, len(texts))], memory.PurposeDocument)
		if err != nil {
			return nil, err
		}
		out = append(out, vs...)
	}
	return out, nil
}

// score runs ex over every session of conv and counts its matches.
func score(ctx context.Context, ex extract.Extractor, e memory.Embedder, conv *locomo.Conversation, thresholds []float64, samples io.Writer) (*counts, error) {
	c := newCounts()
	for _, s := range conv.Sessions {
		turns := make([]extract.Turn, len(s.Turns))
		for i, t := range s.Turns {
			turns[i] = extract.Turn{ID: t.DiaID, Speaker: t.Speaker, Text: t.Text}
		}
		start := time.Now()
		facts, err := ex.Extract(ctx, turns)
		if err != nil {
			return nil, fmt.Errorf("%s session %d: %w", conv.Name, s.N, err)
		}
		c.Elapsed += time.Since(start)
		c.Turns += len(turns)
		c.Facts += len(facts)
		c.Observations += len(s.Observations)
		texts := make([]string, 0, len(facts)+len(s.Observations))
		for _, f := range facts {
			texts = append(texts, f.Text)
		}
		for _, o := range s.Observations {
			texts = append(texts, o.Text)
		}
		vecs, err := embedAll(ctx, e, texts)
		if err != nil {
			return nil, err
		}
		fv, ov := vecs[:len(facts)], vecs[len(facts):]
		// best[i][j]: cosine of fact i and observation j when they share a turn, else -1.
		best := make([][]float64, len(facts))
		for i, f := range facts {
			best[i] = make([]float64, len(s.Observations))
			for j, o := range s.Observations {
				best[i][j] = -1
				if shares(f.Sources, o.Turns) {
					best[i][j] = cosine(fv[i], ov[j])
				}
			}
		}
		for j, o := range s.Observations {
			top, covered := -1.0, false
			for i := range facts {
				if best[i][j] > -1 {
					covered = true
				}
				top = max(top, best[i][j])
			}
			if covered {
				c.Covered++
			}
			for k, t := range thresholds {
				if top >= t {
					c.Matched[k]++
				}
			}
			if samples != nil && covered {
				var near string
				for i := range facts {
					if best[i][j] == top {
						near = facts[i].Text
					}
				}
				fmt.Fprintf(samples, "%.3f\t%s\t%s\t%s\n", top, strings.Join(o.Turns, ","), o.Text, near)
			}
		}
		for i := range facts {
			top := -1.0
			for j := range s.Observations {
				top = max(top, best[i][j])
			}
			for k, t := range thresholds {
				if top >= t {
					c.Correct[k]++
				}
			}
			if samples != nil && top < 0 {
				fmt.Fprintf(samples, "-\t%s\t(no observation)\t%s\n", strings.Join(facts[i].Sources, ","), facts[i].Text)
			}
		}
	}
	return c, nil
}

func main() {
	data := flag.String("data", "../shared/bench/locomo/*.json", "LoCoMo files or a glob")
	jsonOut := flag.String("json", "", "write the results as JSON to this file")
	names := flag.String("extractor", "baseline,local", "comma-separated extractors: baseline, local, configured")
	threshold := flag.Float64("threshold", 0, "cosine from which a fact matches an observation (default 0.80 for bge-small, 0.50 for the hashing embedder)")
	samples := flag.String("samples", "", "write every observation with its nearest fact, and every fact citing no observed turn, to this file")
	flag.Parse()
	if err := run(*data, *jsonOut, *names, *threshold, *samples); err != nil {
		fmt.Fprintln(os.Stderr, "bench-extract:", err)
		os.Exit(1)
	}
}

func run(data, jsonOut, names string, threshold float64, samplesOut string) error {
	ctx := context.Background()
	var files []string
	for _, pat := range strings.Fields(data) {
		m, err := filepath.Glob(pat)
		if err != nil {
			return err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return fmt.Errorf("no files match %q", data)
	}
	var convs []*locomo.Conversation
	for _, f := range files {
		c, err := locomo.Load(f)
		if err != nil {
			return err
		}
		convs = append(convs, c)
	}
	cfg, err := config.Load(os.Getenv)
	if err != nil {
		return err
	}
	emb, err := server.NewEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	if threshold == 0 {
		threshold = 0.50
		if emb.Model() == onnx.Model {
			threshold = 0.80
		}
	}
	thresholds := []float64{threshold - 0.1, threshold - 0.05, threshold, threshold + 0.05}
	const main = 2
	var exs []extract.Extractor
	for _, n := range strings.Split(names, ",") {
		switch strings.TrimSpace(n) {
		case "baseline":
			exs = append(exs, baseline{})
		case "local":
			exs = append(exs, extract.Local{})
		case "configured":
			dir, err := os.MkdirTemp("", "bench-extract-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			cfg.DataDir, cfg.Index.Kind, cfg.Store.Backend = dir, "embedded", "embedded"
			b, err := server.Open(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
			if err != nil {
				return err
			}
			defer b.Close()
			exs = append(exs, b.Facts.Extractor)
		default:
			return fmt.Errorf("unknown extractor %q (baseline, local, configured)", n)
		}
	}
	var samples io.Writer
	if samplesOut != "" {
		f, err := os.Create(samplesOut)
		if err != nil {
			return err
		}
		defer f.Close()
		samples = f
	}
	fmt.Printf("# bench-extract: %d conversations (%s), embedder %s, match = cites a same turn and cosine >= %.2f\n\n",
		len(convs), strings.Join(convNames(convs), ", "), emb.Model(), threshold)
	fmt.Println("| extractor | observations | facts | recall | precision | turn coverage | facts/turn | ms/turn |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|")
	// The last extractor named is the primary one: its figures are also at
	// the top level (overall, per_conversation), as in bench-locomo.
	byName := map[string]any{}
	results := map[string]any{"embedder": emb.Model(), "threshold": threshold, "extractors": byName}
	for _, ex := range exs {
		all := newCounts()
		per := map[string]any{}
		for _, conv := range convs {
			if samples != nil {
				fmt.Fprintf(samples, "## %s %s\n", ex.Name(), conv.Name)
			}
			c, err := score(ctx, ex, emb, conv, thresholds, samples)
			if err != nil {
				return err
			}
			per[conv.Name] = c.json(thresholds, main)
			all.add(c)
		}
		js := all.json(thresholds, main)
		fmt.Printf("| %s | %d | %d | %.3f | %.3f | %.3f | %.2f | %.3f |\n", ex.Name(), all.Observations, all.Facts,
			js["recall"], js["precision"], js["turn_coverage"], js["facts_per_turn"], js["ms_per_turn"])
		byName[ex.Name()] = map[string]any{"overall": js, "per_conversation": per}
		results["extractor"], results["overall"], results["per_conversation"] = ex.Name(), js, per
	}
	if jsonOut != "" {
		js, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(jsonOut, append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func convNames(cs []*locomo.Conversation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}
