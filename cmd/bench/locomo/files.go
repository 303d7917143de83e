package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentmem/agentmem/internal/locomo"
)

// keepDir is -dir: where the ingested corpus is kept for the next run.
var keepDir string

// add sums o's recalls and count into m.
func (m *Metrics) add(o Metrics) {
	m.R1 += o.R1
	m.R5 += o.R5
	m.R10 += o.R10
	m.R20 += o.R20
	m.Budget += o.Budget
	m.N += o.N
}

// corpusManifest names what a kept corpus holds, so that a run over other
// files or variants does not reuse it.
type corpusManifest struct {
	Conversations []string `json:"conversations"`
	Facts         bool     `json:"facts"`
}

const manifestName = "bench-locomo.json"

func manifestOf(convs []*locomo.Conversation, withFacts bool) corpusManifest {
	return corpusManifest{Conversations: names(convs), Facts: withFacts}
}

// corpusDir returns the data directory of the run and whether it already
// holds the corpus of convs: a fresh temporary directory without -dir;
// with -dir, that directory, reused when its manifest names the same
// conversations and the variants wanted (a corpus with facts serves a run
// without), and refused when it holds anything else.
func corpusDir(convs []*locomo.Conversation, withFacts bool) (string, bool, error) {
	if keepDir == "" {
		dir, err := os.MkdirTemp("", "bench-locomo-")
		return dir, false, err
	}
	raw, err := os.ReadFile(filepath.Join(keepDir, manifestName))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		entries, rerr := os.ReadDir(keepDir)
		if rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return "", false, rerr
		}
		if len(entries) > 0 {
			return "", false, fmt.Errorf("-dir %s: not empty and not a kept corpus (no %s)", keepDir, manifestName)
		}
		return keepDir, false, os.MkdirAll(keepDir, 0o755)
	case err != nil:
		return "", false, err
	}
	var got corpusManifest
	if err := json.Unmarshal(raw, &got); err != nil {
		return "", false, fmt.Errorf("-dir %s: %s: %w", keepDir, manifestName, err)
	}
	want := manifestOf(convs, withFacts)
	if !slices.Equal(got.Conversations, want.Conversations) || want.Facts && !got.Facts {
		return "", false, fmt.Errorf("-dir %s holds %s (facts %v), not %s (facts %v): use another directory",
			keepDir, strings.Join(got.Conversations, ", "), got.Facts, strings.Join(want.Conversations, ", "), want.Facts)
	}
	return keepDir, true, nil
}

// markIngested writes the manifest once the corpus is complete.
func markIngested(dir string, convs []*locomo.Conversation, withFacts bool) error {
	if keepDir == "" {
		return nil
	}
	raw, _ := json.Marshal(manifestOf(convs, withFacts))
	return os.WriteFile(filepath.Join(dir, manifestName), raw, 0o644)
}

// printFiles prints recall@10 of each of n modes per conversation, with
// the mean of the files (each file weighing the same, whatever its number
// of questions) and the worst file.
func printFiles(convs []*locomo.Conversation, n int, row func(int) (string, map[string]*Metrics)) {
	if n == 0 || len(convs) < 2 {
		return
	}
	fmt.Println()
	fmt.Println("recall@10 per file (mean of files: each file weighs the same):")
	fmt.Println()
	head, rule := "| mode |", "|---|"
	for _, c := range convs {
		head += " " + c.Name + " |"
		rule += "---:|"
	}
	fmt.Println(head + " mean of files | worst |")
	fmt.Println(rule + "---:|---:|")
	for i := range n {
		mode, files := row(i)
		line, sum, worst := "| "+mode+" |", 0.0, 1.0
		for _, c := range convs {
			m := files[c.Name]
			r := m.R10 / float64(max(m.N, 1))
			sum += r
			worst = min(worst, r)
			line += fmt.Sprintf(" %.3f |", r)
		}
		fmt.Printf("%s %.3f | %.3f |\n", line, sum/float64(len(convs)), worst)
	}
}
