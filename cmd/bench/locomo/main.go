// Command bench-locomo measures retrieval on LoCoMo-format conversations:
// each conversation is ingested into its own org through the HTTP API (turns
// as message memories: speaker as entity, session as room, the session date
// as createdAt, image captions appended; optionally the observation facts as
// fact memories about their speaker pointing back to their turn), then every question of
// categories 1-4 is searched with its text alone, and evidence recall@k and
// recall within a 1,000-token context budget are computed per category and
// mode. The answers and evidence are read only to score.
//
//	go run ./cmd/bench/locomo -data '../shared/bench/locomo/*.json' -json results.json -svg recall.svg
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/internal/locomo"
	"github.com/agentmem/agentmem/pkg/auth"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

// turnText returns the text of the turn with dia_id id, speaker first.
func turnText(c *locomo.Conversation, id string) string {
	if t, ok := c.Turn(id); ok {
		return t.Speaker + ": " + t.Text
	}
	return "(no such turn)"
}

// client is a minimal HTTP client of the API.
type client struct {
	url, key string
}

// awaitKnowledge waits until c's org has no memory whose knowledge is
// pending (GET /v1/knowledge/status): a batch create leaves its knowledge
// to the background worker, and the questions need the knowledge list.
func awaitKnowledge(c client) error {
	for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var st struct {
			Pending int  `json:"pending"`
			More    bool `json:"more"`
		}
		if err := c.get("/v1/knowledge/status", nil, &st); err != nil {
			return err
		}
		if st.Pending == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("knowledge: %d memories still pending after 10 minutes", st.Pending)
		}
	}
}

func (c client) post(path string, body, out any) error {
	js, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", c.url+path, bytes.NewReader(js))
	req.Header.Set("Authorization", "Bearer "+c.key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s: %d %s", path, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

// ingest writes the conversation (and its facts when withFacts) through the API.
func ingest(c client, conv *locomo.Conversation, withFacts bool) error {
	var batch []map[string]any
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var res map[string]any
		err := c.post("/v1/memories", map[string]any{"memories": batch}, &res)
		batch = nil
		return err
	}
	for _, s := range conv.Sessions {
		for i, t := range s.Turns {
			text := t.Text
			if t.Caption != "" {
				text += " [shared an image: " + t.Caption + "]"
			}
			batch = append(batch, map[string]any{
				"type": "message", "entityId": t.Speaker, "roomId": fmt.Sprintf("session_%d", s.N), "sessionId": fmt.Sprintf("session_%d", s.N),
				"createdAt": s.Date.Add(time.Duration(i) * time.Second).UnixMilli(),
				"content":   map[string]any{"text": text}, "metadata": map[string]any{"dia_id": t.DiaID},
			})
			if len(batch) == memory.MaxBatch {
				if err := flush(); err != nil {
					return err
				}
			}
		}
	}
	if withFacts {
		dates := map[int]time.Time{}
		for _, s := range conv.Sessions {
			dates[s.N] = s.Date
		}
		// One fact memory per observation and turn it cites, dated by the
		// session of that turn, with the speaker it is about as entityId (as
		// the extraction pipeline stores a fact about a speaker). (An
		// observation citing several turns in one string, "D1:3; D1:5", used
		// to become a single fact with that whole string as dia_id, which
		// matched no evidence; it is now one fact per turn.)
		for _, s := range conv.Sessions {
			for _, o := range s.Observations {
				for _, id := range o.Turns {
					n := 0
					fmt.Sscanf(id, "D%d:", &n)
					batch = append(batch, map[string]any{
						"type": "fact", "createdAt": dates[n].UnixMilli(), "entityId": o.Speaker,
						"content": map[string]any{"text": o.Text}, "metadata": map[string]any{"dia_id": id},
					})
					if len(batch) == memory.MaxBatch {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return flush()
}

// Metrics are the mean recalls of a set of questions.
type Metrics struct {
	R1, R5, R10, R20, Budget float64
	N                        int
}

func (m Metrics) json() map[string]any {
	n := float64(max(m.N, 1))
	return map[string]any{"recall@1": m.R1 / n, "recall@5": m.R5 / n, "recall@10": m.R10 / n,
		"recall@20": m.R20 / n, "recall@1000tok": m.Budget / n, "questions": m.N}
}

func recall(evidence []string, found []string) float64 {
	if len(evidence) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, f := range found {
		seen[f] = true
	}
	hit := 0
	for _, e := range evidence {
		if seen[e] {
			hit++
		}
	}
	return float64(hit) / float64(len(evidence))
}

type searchResponse struct {
	Results []struct {
		Score  float64                      `json:"score"`
		Scores map[string]*memory.ModeScore `json:"scores"`
		Memory struct {
			Type     string `json:"type"`
			EntityID string `json:"entityId"`
			Content  struct {
				Text string `json:"text"`
			} `json:"content"`
			Metadata struct {
				DiaID string `json:"dia_id"`
			} `json:"metadata"`
		} `json:"memory"`
	} `json:"results"`
}

// modes are the configurations a user can choose, in the order reported:
// each list alone, the fusions, and "full", exactly what /v1/search does
// with no mode on this configuration (every list, then the reranker when
// one is configured). A mode whose list the server lacks is skipped.
var modes = []string{"keyword", "semantic", "knowledge", "hybrid", "hybrid+time", "hybrid+entity", "hybrid+when", "hybrid+decompose", "hybrid+knowledge", "full"}

// minScore is the relevance floor every search asks for (-min-score): a
// context leaves out what is below it (retrieval.RelevanceFloor).
var minScore float64

// searchBody is the search request of a mode.
func searchBody(query, mode string) map[string]any {
	body := map[string]any{"query": query, "k": memory.MaxK}
	if minScore > 0 {
		body["minScore"] = minScore
	}
	switch mode {
	case "full":
	case "hybrid+knowledge":
		body["lists"] = []string{"keyword", "semantic", "knowledge"}
	case "hybrid+time":
		body["lists"] = []string{"keyword", "semantic", "time"}
	case "hybrid+entity":
		body["lists"] = []string{"keyword", "semantic", "entity"}
	case "hybrid+when":
		body["lists"] = []string{"keyword", "semantic", "when"}
	case "hybrid+decompose":
		body["lists"] = []string{"keyword", "semantic", "decompose"}
	default:
		body["mode"] = mode
	}
	return body
}

// available reports whether the server can run mode (it answers 400 for a
// list it does not have).
func available(c client, mode string) bool {
	var res searchResponse
	return c.post("/v1/search", searchBody("probe", mode), &res) == nil
}

// evaluate asks every question of categories 1-4 in one mode.
// misses, when set, receives every question whose evidence is not all in
// the top 10, with the evidence and what was returned instead.
func evaluate(c client, conv *locomo.Conversation, mode string, byCat map[int]*Metrics, all *Metrics, misses io.Writer) error {
	for _, q := range conv.Questions {
		if q.Category < 1 || q.Category > 4 || len(q.Evidence) == 0 {
			continue
		}
		var res searchResponse
		if err := c.post("/v1/search", searchBody(q.Question, mode), &res); err != nil {
			return err
		}
		var ids []string
		tokens, budgetIDs := 0, []string(nil)
		for _, r := range res.Results {
			ids = append(ids, r.Memory.Metadata.DiaID)
			line := r.Memory.Content.Text
			if r.Memory.EntityID != "" {
				line = r.Memory.EntityID + ": " + line
			}
			if tokens += memory.EstimateTokens(line) + 1; tokens <= 1000 {
				budgetIDs = append(budgetIDs, r.Memory.Metadata.DiaID)
			}
		}
		top := func(k int) []string { return ids[:min(k, len(ids))] }
		if misses != nil && recall(q.Evidence, top(10)) < 1 {
			fmt.Fprintf(misses, "## %s [%s, category %d] %s\n", conv.Name, mode, q.Category, q.Question)
			for _, e := range q.Evidence {
				rank := "-"
				if i := slices.Index(ids, e); i >= 0 {
					rank = strconv.Itoa(i + 1)
				}
				fmt.Fprintf(misses, "   want %s (rank %s) %s\n", e, rank, turnText(conv, e))
			}
			for i, id := range top(10) {
				fmt.Fprintf(misses, "   %2d   %s %s\n", i+1, id, turnText(conv, id))
			}
		}
		if dump != nil {
			if err := dumpQuestion(conv, q, mode, &res); err != nil {
				return err
			}
		}
		m := byCat[q.Category]
		for _, x := range []*Metrics{m, all} {
			x.R1 += recall(q.Evidence, top(1))
			x.R5 += recall(q.Evidence, top(5))
			x.R10 += recall(q.Evidence, top(10))
			x.R20 += recall(q.Evidence, top(20))
			x.Budget += recall(q.Evidence, budgetIDs)
			x.N++
		}
	}
	return nil
}

// dump, when set (-dump), receives one JSON line per question and mode:
// the question, its evidence and every result with each list's score and
// rank, for offline analysis of the ranking.
var dump *json.Encoder

// dumpQuestion writes one question's line to dump.
func dumpQuestion(conv *locomo.Conversation, q locomo.Question, mode string, res *searchResponse) error {
	type result struct {
		DiaID  string                       `json:"dia"`
		Score  float64                      `json:"score"`
		Scores map[string]*memory.ModeScore `json:"scores"`
		Words  int                          `json:"words"`
		Type   string                       `json:"type"`
	}
	line := struct {
		File     string   `json:"file"`
		Mode     string   `json:"mode"`
		Category int      `json:"category"`
		Question string   `json:"question"`
		Evidence []string `json:"evidence"`
		Results  []result `json:"results"`
	}{conv.Name, mode, q.Category, q.Question, q.Evidence, nil}
	for _, r := range res.Results {
		line.Results = append(line.Results, result{r.Memory.Metadata.DiaID, r.Score, r.Scores,
			len(strings.Fields(r.Memory.Content.Text)), r.Memory.Type})
	}
	return dump.Encode(line)
}

func main() {
	data := flag.String("data", "../shared/bench/locomo/*.json", "LoCoMo files or a glob")
	jsonOut := flag.String("json", "", "write the results as JSON to this file")
	svgOut := flag.String("svg", "", "write a bar chart of recall@10 by mode to this SVG file")
	facts := flag.Bool("facts", true, "also run the modes with the observation facts")
	misses := flag.String("misses", "", "write the questions whose evidence is not all in the top 10 to this file, with what came instead")
	only := flag.String("modes", "", "run only these comma-separated modes (default: all; \"none\" for none)")
	flag.Float64Var(&minScore, "min-score", 0, "relevance floor of every search, as a context applies it (0.57 is bge-small's calibrated floor; 0 none)")
	lists := flag.String("lists", "", "also run the list questions (\"List every X that Y mentioned\", from the entity index) at these comma-separated token budgets, e.g. 1000,3000, and the books demo")
	flag.StringVar(&keepDir, "dir", "", "keep the ingested corpus in this directory and reuse it on the next run with the same files (for changes on the query side only: a change to ingestion or extraction needs a fresh directory)")
	dumpOut := flag.String("dump", "", "write every question's results, with each list's score and rank, as JSON lines to this file")
	flag.Parse()
	if *dumpOut != "" {
		f, err := os.Create(*dumpOut)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench-locomo:", err)
			os.Exit(1)
		}
		defer f.Close()
		dump = json.NewEncoder(f)
	}
	if *only == "none" {
		modes = nil
	} else if *only != "" {
		modes = strings.Split(*only, ",")
	}
	if err := run(*data, *jsonOut, *svgOut, *misses, *lists, *facts); err != nil {
		fmt.Fprintln(os.Stderr, "bench-locomo:", err)
		os.Exit(1)
	}
}

// parseBudgets parses -lists: comma-separated token budgets.
func parseBudgets(lists string) ([]int, error) {
	var budgets []int
	for _, f := range strings.Split(lists, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-lists: %q is not a token budget", f)
		}
		budgets = append(budgets, n)
	}
	return budgets, nil
}

// loadConversations loads the conversations of the files data's glob
// patterns match, each session dated.
func loadConversations(data string) ([]*locomo.Conversation, error) {
	var files []string
	for _, pat := range strings.Fields(data) {
		m, err := filepath.Glob(pat)
		if err != nil {
			return nil, err
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no files match %q", data)
	}
	var convs []*locomo.Conversation
	for _, f := range files {
		c, err := locomo.Load(f)
		if err != nil {
			return nil, err
		}
		for _, s := range c.Sessions {
			if s.Date.IsZero() {
				return nil, fmt.Errorf("%s: session_%d has no session_%d_date_time", f, s.N, s.N)
			}
		}
		convs = append(convs, c)
	}
	return convs, nil
}

// run ingests every conversation into its own org, evaluates each mode on
// it, and writes the table, the JSON, the misses and the chart.
func run(data, jsonOut, svgOut, missesOut, lists string, withFacts bool) error {
	budgets, err := parseBudgets(lists)
	if err != nil {
		return err
	}
	convs, err := loadConversations(data)
	if err != nil {
		return err
	}
	dir, reuse, err := corpusDir(convs, withFacts)
	if err != nil {
		return err
	}
	if keepDir == "" {
		defer os.RemoveAll(dir)
	}
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	cfg.DataDir, cfg.Index.Kind, cfg.Store.Backend = dir, "embedded", "embedded"
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := server.Open(context.Background(), cfg, quiet)
	if err != nil {
		return err
	}
	defer b.Close()
	// One key per conversation and variant: each is its own org.
	var spec []string
	variants := []string{"turns"}
	if withFacts {
		variants = append(variants, "facts")
	}
	clients := map[string]client{}
	for i, c := range convs {
		for _, v := range variants {
			key := fmt.Sprintf("bench-key-%04d-%s-000000", i, v)
			spec = append(spec, fmt.Sprintf("%s=locomo-%d-%s", key, i, v))
			clients[c.Name+"/"+v] = client{key: key}
		}
	}
	keys, err := auth.ParseKeys(strings.Join(spec, ","))
	if err != nil {
		return err
	}
	srv := httptest.NewServer(httpapi.New(b.Service, keys, quiet, httpapi.WithKnowledge(b.Knowledge)))
	defer srv.Close()
	start := time.Now()
	nq := 0
	for _, c := range convs {
		for _, v := range variants {
			cl := clients[c.Name+"/"+v]
			cl.url = srv.URL
			clients[c.Name+"/"+v] = cl
			if reuse {
				continue
			}
			if err := ingest(cl, c, v == "facts"); err != nil {
				return err
			}
		}
		nq += len(c.Questions)
	}
	for _, cl := range clients {
		if err := awaitKnowledge(cl); err != nil {
			return err
		}
	}
	took := "ingested in " + time.Since(start).Round(time.Millisecond).String()
	if reuse {
		took = "reusing the corpus in " + dir
	} else if err := markIngested(dir, convs, withFacts); err != nil {
		return err
	}
	fmt.Printf("# bench-locomo: %d conversations (%s), embedder %s; %s\n\n", len(convs),
		strings.Join(names(convs), ", "), b.Embedder.Model(), took)
	var misses io.Writer
	if missesOut != "" {
		f, err := os.Create(missesOut)
		if err != nil {
			return err
		}
		defer f.Close()
		misses = f
	}
	rows, results, err := evaluateModes(clients, convs, variants, misses)
	if err != nil {
		return err
	}
	fmt.Println("| mode | questions | recall@1 | recall@5 | recall@10 | recall@20 | recall@1000tok | cat 1 @10 | cat 2 @10 | cat 3 @10 | cat 4 @10 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rows {
		n := float64(r.all.N)
		cat := func(k int) float64 { return r.cats[k].R10 / float64(max(r.cats[k].N, 1)) }
		fmt.Printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", r.mode, r.all.N,
			r.all.R1/n, r.all.R5/n, r.all.R10/n, r.all.R20/n, r.all.Budget/n, cat(1), cat(2), cat(3), cat(4))
	}
	printFiles(convs, len(rows), func(i int) (string, map[string]*Metrics) { return rows[i].mode, rows[i].files })
	if jsonOut != "" {
		js, _ := json.MarshalIndent(results, "", "  ")
		if err := os.WriteFile(jsonOut, append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	if len(budgets) > 0 {
		if err := runLists(clients, convs, budgets); err != nil {
			return err
		}
		if err := runBooks(clients, convs); err != nil {
			return err
		}
	}
	if svgOut != "" && len(rows) > 0 {
		var bars []bar
		for _, r := range rows {
			bars = append(bars, bar{r.mode, r.all.R10 / float64(r.all.N)})
		}
		title := fmt.Sprintf("LoCoMo evidence recall@10 (%d questions, %s)", rows[0].all.N, b.Embedder.Model())
		if err := os.WriteFile(svgOut, []byte(chart(title, bars)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// row is one mode's recalls: pooled, by category and by file.
type row struct {
	mode  string
	all   Metrics
	cats  map[int]*Metrics
	files map[string]*Metrics
}

// evaluateModes asks every question in every mode of every variant, and
// returns the rows and their JSON.
func evaluateModes(clients map[string]client, convs []*locomo.Conversation, variants []string, misses io.Writer) ([]row, map[string]any, error) {
	results := map[string]any{}
	var rows []row
	for _, v := range variants {
		for _, mode := range modes {
			if !available(clients[convs[0].Name+"/"+v], mode) {
				fmt.Printf("(mode %s skipped: the server has no such list)\n", mode)
				continue
			}
			name := mode
			if v == "facts" {
				name += "+facts"
			}
			r := row{mode: name, cats: map[int]*Metrics{1: {}, 2: {}, 3: {}, 4: {}}, files: map[string]*Metrics{}}
			for _, c := range convs {
				file := &Metrics{}
				if err := evaluate(clients[c.Name+"/"+v], c, mode, r.cats, file, misses); err != nil {
					return nil, nil, err
				}
				r.files[c.Name] = file
				r.all.add(*file)
			}
			rows = append(rows, r)
			byCat := map[string]any{}
			for k, m := range r.cats {
				byCat[strconv.Itoa(k)] = m.json()
			}
			byFile := map[string]any{}
			for k, m := range r.files {
				byFile[k] = m.json()
			}
			results[name] = map[string]any{"overall": r.all.json(), "by_category": byCat, "by_file": byFile}
		}
	}
	return rows, results, nil
}

func names(cs []*locomo.Conversation) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

type bar struct {
	label string
	value float64
}

// chart draws a horizontal bar chart as SVG.
func chart(title string, bars []bar) string {
	const w, rowH, left = 640, 34, 130
	h := 60 + rowH*len(bars) + 30
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="13">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="12" y="26" font-size="15" font-weight="bold">%s</text>`+"\n", escape(title))
	scale := float64(w - left - 70)
	for i := 0; i <= 4; i++ {
		x := left + int(scale*float64(i)/4)
		fmt.Fprintf(&b, `<line x1="%d" y1="44" x2="%d" y2="%d" stroke="#ddd"/><text x="%d" y="%d" fill="#666" text-anchor="middle">%.2f</text>`+"\n", x, x, h-24, x, h-8, float64(i)/4)
	}
	for i, br := range bars {
		y := 52 + i*rowH
		color := "#4c78a8"
		if strings.Contains(br.label, "hybrid") {
			color = "#e45756"
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+18, escape(br.label))
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="24" fill="%s"/>`+"\n", left, y+2, scale*br.value, color)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%.3f</text>`+"\n", float64(left)+scale*br.value+6, y+18, br.value)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
