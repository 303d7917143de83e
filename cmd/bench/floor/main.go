// Command bench-floor calibrates the relevance floor of the configured
// embedder (EMBEDDER, MODEL_DIR): the cosine similarity under which a
// memory found only by its vector is left out of a context
// (retrieval.RelevanceFloor).
//
// It does not use LoCoMo. Its data is a synthetic set written for it and
// held out from every other benchmark: a corpus of 48 memories in eight
// everyday domains (cooking, travel, family, work, fitness, music, pets,
// home), 24 questions about them, each with the memory that answers it,
// and 32 off-topic questions on subjects the corpus never mentions
// (Kubernetes, tax law, volcanoes...).
//
// For each off-topic question it takes the best cosine any memory reaches:
// what a vector search returns when nothing is relevant. For each on-topic
// question it takes the cosine of the memory that answers it. It prints
// both distributions and the floor: the highest off-topic best cosine,
// rounded up to 0.01, so that no off-topic question of the set keeps a
// memory on its vector alone, with the share of answering memories that
// stay above it.
//
//	go run ./cmd/bench/floor
package main

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/server"
)

var corpus = []string{
	// cooking
	"Priya bakes sourdough bread every Sunday morning.",
	"I made a big pot of lentil soup for the week.",
	"Tom's favourite dish is his grandmother's lasagne.",
	"We tried a new Thai curry recipe with coconut milk last night.",
	"Ana does not eat mushrooms, she finds them slimy.",
	"The kitchen knife set I bought was too dull to cut tomatoes.",
	// travel
	"Next month we are flying to Lisbon for a long weekend.",
	"Sam lost his passport at the airport in Rome.",
	"The hotel in Kyoto had a beautiful garden and a hot spring.",
	"I always book a window seat on long flights.",
	"Maya went backpacking through Chile after college.",
	"Our train to Vienna was delayed by three hours.",
	// family
	"My sister just had her second baby, a girl named Lea.",
	"Dad turns seventy in June and we are planning a surprise party.",
	"The kids started at a new school this autumn.",
	"My grandmother taught me to knit when I was eight.",
	"Ben and his brother do not speak since the inheritance fight.",
	"We visit my in-laws every Christmas in the countryside.",
	// work
	"Li was promoted to engineering manager last quarter.",
	"The product launch moved to the second week of March.",
	"I have a performance review with my boss on Friday.",
	"Our team is hiring two backend developers.",
	"Jon quit his job at the bank to start a bakery.",
	"The client asked for a discount on the annual contract.",
	// fitness
	"I ran my first half marathon in under two hours.",
	"Ana goes to yoga class twice a week before work.",
	"Tom hurt his knee playing football on Saturday.",
	"I am training for a cycling race in the mountains.",
	"Maya swims forty lengths at the pool every morning.",
	"The gym near the office raised its monthly fee.",
	// music
	"Sam has been learning the cello for two years.",
	"We saw a jazz concert at the old theatre downtown.",
	"Priya sings in a community choir on Thursdays.",
	"My favourite band is releasing a new album in May.",
	"Ben plays bass guitar in a punk band with friends.",
	"I fell asleep listening to piano sonatas.",
	// pets
	"Our dog Max chewed through the sofa cushion.",
	"Maya adopted two kittens from the shelter.",
	"The vet said the cat needs to lose some weight.",
	"Li's parrot can whistle the national anthem.",
	"I walk the dog along the river every evening.",
	"Tom is allergic to cats, so he never stays over.",
	// home
	"We are repainting the living room a pale green.",
	"The boiler broke down and we had no hot water for two days.",
	"Jon is growing tomatoes and basil on his balcony.",
	"I finally fixed the leaking kitchen tap.",
	"Ana moved into a flat near the city centre.",
	"Our neighbours are building an extension at the back.",
}

// onTopic are questions about the corpus, each with the index of the
// memory that answers it.
var onTopic = []struct {
	q      string
	answer int
}{
	{"What does Priya bake on weekends?", 0},
	{"Which food does Ana avoid?", 4},
	{"What is Tom's favourite meal?", 2},
	{"Where is the trip next month?", 6},
	{"What happened to Sam's passport?", 7},
	{"Where did Maya travel after college?", 10},
	{"What is the name of the new baby?", 12},
	{"When is Dad's birthday party?", 13},
	{"Who taught me to knit?", 15},
	{"What is Li's new job title?", 18},
	{"When is the product launch?", 19},
	{"Why did Jon leave the bank?", 22},
	{"How fast was my half marathon?", 24},
	{"How did Tom injure his knee?", 26},
	{"What does Maya do at the pool?", 28},
	{"Which instrument is Sam learning?", 30},
	{"Where does Priya sing?", 32},
	{"What does Ben play in his band?", 34},
	{"What did Max destroy?", 36},
	{"Where did Maya get her kittens?", 37},
	{"Why does Tom not stay over?", 41},
	{"What colour is the living room going to be?", 42},
	{"What is Jon growing on the balcony?", 44},
	{"Where does Ana live now?", 46},
}

// offTopic are questions on subjects the corpus never mentions.
var offTopic = []string{
	"Kubernetes",
	"How do I configure a Kubernetes ingress controller?",
	"What is the capital gains tax rate on shares?",
	"Explain quantum entanglement.",
	"Which volcano erupted in Iceland in 2010?",
	"How does a blockchain reach consensus?",
	"What is the half-life of carbon-14?",
	"Who won the 1966 football world cup?",
	"How do I replace the timing belt on a diesel engine?",
	"What are the side effects of ibuprofen?",
	"Summarize the causes of the French Revolution.",
	"How do I write a SQL join across three tables?",
	"What is the boiling point of nitrogen?",
	"Which planets have rings?",
	"How do vaccines train the immune system?",
	"What is the GDP of Brazil?",
	"How do I set up two-factor authentication on my router?",
	"What is a Fourier transform used for?",
	"Who wrote the Divine Comedy?",
	"How deep is the Mariana Trench?",
	"Terraform state locking",
	"What does the Federal Reserve do with interest rates?",
	"How are semiconductors manufactured?",
	"What is the difference between TCP and UDP?",
	"Explain photosynthesis in plants.",
	"Which chess opening is best for beginners?",
	"How do I file a patent?",
	"What is the speed of light in a vacuum?",
	"How does GPS determine location?",
	"Rust borrow checker lifetimes",
	"What are black holes made of?",
	"How do I negotiate a mortgage with a bank?",
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(math.Round(q*float64(len(s)-1)))]
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run() error {
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	emb, err := server.NewEmbedder(ctx, cfg)
	if err != nil {
		return err
	}
	docs, err := emb.Embed(ctx, corpus, memory.PurposeDocument)
	if err != nil {
		return err
	}
	best := func(q string) (float64, []float32, error) {
		vs, err := emb.Embed(ctx, []string{q}, memory.PurposeQuery)
		if err != nil {
			return 0, nil, err
		}
		top := -1.0
		for _, d := range docs {
			top = max(top, cosine(vs[0], d))
		}
		return top, vs[0], nil
	}
	var off, on, onTop []float64
	for _, q := range offTopic {
		top, _, err := best(q)
		if err != nil {
			return err
		}
		off = append(off, top)
	}
	for _, q := range onTopic {
		top, v, err := best(q.q)
		if err != nil {
			return err
		}
		on = append(on, cosine(v, docs[q.answer]))
		onTop = append(onTop, top)
	}
	floor := math.Ceil(slices.Max(off)*100) / 100
	above := 0
	for _, c := range on {
		if c >= floor {
			above++
		}
	}
	fmt.Printf("# bench-floor: %s; %d memories, %d on-topic and %d off-topic questions (synthetic, not LoCoMo)\n\n",
		emb.Model(), len(corpus), len(onTopic), len(offTopic))
	fmt.Println("| cosine | min | p10 | median | p90 | max |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	row := func(name string, xs []float64) {
		fmt.Printf("| %s | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name, slices.Min(xs), quantile(xs, 0.1), quantile(xs, 0.5), quantile(xs, 0.9), slices.Max(xs))
	}
	row("off-topic question, best memory", off)
	row("on-topic question, its answer", on)
	row("on-topic question, best memory", onTop)
	fmt.Printf("\nfloor (highest off-topic best, rounded up): %.2f; answers at or above it: %d of %d\n", floor, above, len(on))
	return nil
}
