// Command bench-embed measures embedding throughput of the configured
// embedder (EMBEDDER, MODEL_DIR; the offline bge-small-en-v1.5 model by default) on
// short texts and on 1,000-character fragments, with batching.
//
//	go run ./cmd/bench/embed -short 2000 -fragments 200
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

var words = strings.Fields(`the a she he we they my our your friend family dog cat trip weekend dinner coffee tea
	project meeting deadline launch budget report plan idea book movie music concert guitar painting garden beach
	mountain hike run marathon gym yoga recipe kitchen bread cake restaurant office manager team client contract
	invoice payment house apartment car bike train flight hotel museum city country language course exam job
	interview promotion birthday wedding holiday summer winter spring autumn loves hates wants visited bought
	started finished moved called wrote read watched cooked planned said thinks remembers because after before
	with without about really very new old big small happy tired excited worried yesterday today tomorrow`)

func sentence(rng *rand.Rand, n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = words[rng.IntN(len(words))]
	}
	return strings.Join(w, " ")
}

func main() {
	short := flag.Int("short", 2000, "short texts (5 to 15 words)")
	frags := flag.Int("fragments", 200, "fragments of 1,000 characters")
	batch := flag.Int("batch", 64, "texts per Embed call")
	flag.Parse()
	cfg, err := config.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	emb, err := server.NewEmbedder(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var shorts, longs []string
	for i := 0; i < *short; i++ {
		shorts = append(shorts, sentence(rng, 5+rng.IntN(11)))
	}
	for i := 0; i < *frags; i++ {
		var b strings.Builder
		for b.Len() < 1000 {
			b.WriteString(sentence(rng, 8+rng.IntN(10)) + ". ")
		}
		longs = append(longs, b.String()[:1000])
	}
	emb.Embed(ctx, shorts[:min(32, len(shorts))], memory.PurposeDocument) // warm up
	run := func(texts []string) float64 {
		start := time.Now()
		for i := 0; i < len(texts); i += *batch {
			if _, err := emb.Embed(ctx, texts[i:min(len(texts), i+*batch)], memory.PurposeDocument); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
		return float64(len(texts)) / time.Since(start).Seconds()
	}
	fmt.Printf("# bench-embed: %s, %d dimensions; %s, %d CPUs, batches of %d\n\n", emb.Model(), emb.Dimensions(),
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), *batch)
	fmt.Println("| input | count | per second |")
	fmt.Println("|---|---:|---:|")
	fmt.Printf("| short texts (5-15 words) | %d | %.0f |\n", len(shorts), run(shorts))
	fmt.Printf("| fragments of 1,000 characters | %d | %.1f |\n", len(longs), run(longs))
	fmt.Printf("| a single query (batch of 1) | 200 | %.0f |\n", func() float64 {
		start := time.Now()
		for _, t := range shorts[:200] {
			emb.Embed(ctx, []string{t}, memory.PurposeQuery)
		}
		return 200 / time.Since(start).Seconds()
	}())
}
