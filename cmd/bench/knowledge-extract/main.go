// Command bench-knowledge-extract measures the offline knowledge extractor
// on LoCoMo-format conversations: every turn becomes a message source (the
// speaker, the other participant as listener, the session date as time),
// the extractor runs over all of them several times on one goroutine, and
// the program prints the throughput in messages per second, the number of
// entities, actions and topics per message, and the knowledge of a sample
// of turns. The files are only read to measure; nothing is tuned to them.
//
//	go run ./cmd/bench/knowledge-extract -data '../shared/bench/locomo/*.json' -sample 5
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/agentmem/agentmem/internal/locomo"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
)

// load reads the turns of one conversation as knowledge sources, in
// session order.
func load(path string) ([]memory.KnowledgeSource, error) {
	c, err := locomo.Load(path)
	if err != nil {
		return nil, err
	}
	var out []memory.KnowledgeSource
	for _, s := range c.Sessions {
		key := fmt.Sprintf("session_%d", s.N)
		var at int64
		if !s.Date.IsZero() {
			at = s.Date.UnixMilli()
		}
		for _, t := range s.Turns {
			src := memory.KnowledgeSource{MemoryID: c.Name + ":" + t.DiaID, Type: memory.TypeMessage, Text: t.Text,
				Speaker: t.Speaker, SessionID: key, CreatedAt: at}
			switch t.Speaker {
			case c.SpeakerA:
				src.Listeners = []string{c.SpeakerB}
			case c.SpeakerB:
				src.Listeners = []string{c.SpeakerA}
			}
			out = append(out, src)
		}
	}
	return out, nil
}

func main() {
	data := flag.String("data", "../shared/bench/locomo/*.json", "LoCoMo-format conversation files (glob)")
	repeat := flag.Int("repeat", 5, "passes over all messages for the throughput figure")
	sample := flag.Int("sample", 5, "turns whose knowledge is printed")
	every := flag.Int("every", 97, "print every n-th turn as a sample")
	ids := flag.String("ids", "", "comma-separated turns to print instead (file:dia_id, e.g. conv-26:D1:3)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))

	files, err := filepath.Glob(*data)
	if err != nil || len(files) == 0 {
		log.Error("no conversation files", "data", *data, "err", err)
		os.Exit(2)
	}
	var srcs []memory.KnowledgeSource
	for _, f := range files {
		s, err := load(f)
		if err != nil {
			log.Error("load", "file", f, "err", err)
			os.Exit(1)
		}
		srcs = append(srcs, s...)
	}
	var bytes int
	for _, s := range srcs {
		bytes += len(s.Text)
	}
	x := offline.New(offline.Options{})
	ctx := context.Background()
	var ks []memory.Knowledge
	cpu0 := cpuTime()
	start := time.Now()
	for r := 0; r < max(*repeat, 1); r++ {
		if ks, err = x.Extract(ctx, srcs); err != nil {
			log.Error("extract", "err", err)
			os.Exit(1)
		}
	}
	el, cpu := time.Since(start), cpuTime()-cpu0
	n := len(srcs) * max(*repeat, 1)
	fmt.Printf("extractor %s: %d messages (%d files, %.0f bytes/message) x %d passes: %v wall, %v CPU\n",
		x.Name(), len(srcs), len(files), float64(bytes)/float64(len(srcs)), max(*repeat, 1),
		el.Round(time.Millisecond), cpu.Round(time.Millisecond))
	// On a shared machine the wall clock also counts other processes' time:
	// messages per CPU second is the figure that says what one core does.
	fmt.Printf("throughput (one goroutine): %.0f messages per CPU second, %.0f per wall second\n\n",
		float64(n)/cpu.Seconds(), float64(n)/el.Seconds())

	// counts per message, metadata (speaker, listener, say) left out
	meta := offline.Metadata(srcs[0], false)
	var ents, acts, tops, facets, withAct, withTextEnt, refs int
	types := map[string]int{}
	for i, k := range ks {
		m := offline.Metadata(srcs[i], false)
		meta = m
		e := len(k.Entities) - len(meta.Entities)
		a := len(k.Actions) - len(meta.Actions)
		ents, acts, tops = ents+e, acts+a, tops+len(k.Topics)
		if a > 0 {
			withAct++
		}
		if e > 0 {
			withTextEnt++
		}
		for _, en := range k.Entities {
			facets += len(en.Facets)
			for _, t := range en.Types {
				types[t]++
			}
		}
		refs += len(k.Refs(srcs[i].MemoryID))
	}
	f := float64(len(ks))
	fmt.Printf("per message (metadata excluded): %.2f entities, %.2f actions, %.2f topics; %.2f facets, %.1f refs in all\n",
		float64(ents)/f, float64(acts)/f, float64(tops)/f, float64(facets)/f, float64(refs)/f)
	fmt.Printf("messages with an action: %.0f%%, with an entity from the text: %.0f%%\n",
		100*float64(withAct)/f, 100*float64(withTextEnt)/f)
	var tc []memory.TermCount
	for t, c := range types {
		tc = append(tc, memory.TermCount{Term: t, Count: c})
	}
	memory.SortTermCounts(tc)
	if len(tc) > 15 {
		tc = tc[:15]
	}
	fmt.Printf("most frequent entity types: ")
	for _, t := range tc {
		fmt.Printf("%s %d  ", t.Term, t.Count)
	}
	fmt.Println()

	if *ids != "" {
		for _, id := range strings.Split(*ids, ",") {
			for i, s := range srcs {
				if s.MemoryID == strings.TrimSpace(id) {
					fmt.Printf("\n[%s] %s: %s\n%s", s.MemoryID, s.Speaker, s.Text, render(ks[i], s.Text))
				}
			}
		}
		return
	}
	fmt.Printf("\nsample (every %d-th turn):\n", *every)
	for i, shown := 0, 0; i < len(ks) && shown < *sample; i += max(*every, 1) {
		fmt.Printf("\n[%s] %s: %s\n%s", srcs[i].MemoryID, srcs[i].Speaker, srcs[i].Text, render(ks[i], srcs[i].Text))
		shown++
	}
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// render prints knowledge one item a line, with the text each was found in.
func render(k memory.Knowledge, text string) string {
	var b strings.Builder
	at := func(rs []memory.TextRange, n, i int) string {
		if len(rs) != n || rs[i] == (memory.TextRange{}) || rs[i].End > len(text) {
			return ""
		}
		return fmt.Sprintf("  \u2190 %q", text[rs[i].Start:rs[i].End])
	}
	for i, e := range k.Entities {
		fmt.Fprintf(&b, "  entity %s %v", e.Name, e.Types)
		for _, f := range e.Facets {
			fmt.Fprintf(&b, " {%s: %s}", f.Name, f.String())
		}
		fmt.Fprintf(&b, "%s\n", at(k.EntityRanges, len(k.Entities), i))
	}
	for i, a := range k.Actions {
		fmt.Fprintf(&b, "  action %s %s", a.Subject, strings.Join(a.Verbs, "+"))
		if a.Negated {
			b.WriteString(" (not)")
		}
		fmt.Fprintf(&b, " [%s]", a.Tense)
		if a.Object != "" {
			fmt.Fprintf(&b, " obj=%s", a.Object)
		}
		if a.IndirectObject != "" {
			fmt.Fprintf(&b, " ind=%s", a.IndirectObject)
		}
		for _, p := range a.Params {
			fmt.Fprintf(&b, " %s=%s", p.Name, p.Value)
		}
		if f := a.SubjectFacet; f != nil {
			fmt.Fprintf(&b, " facet{%s: %s}", f.Name, f.String())
		}
		fmt.Fprintf(&b, "%s\n", at(k.ActionRanges, len(k.Actions), i))
	}
	if len(k.Topics) > 0 {
		fmt.Fprintf(&b, "  topics %s\n", strings.Join(k.Topics, "; "))
	}
	return b.String()
}
