package extract

import (
	"context"
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/memory"
)

// Local is an extractor that needs no model: patterns over first-person
// statements. It catches stated preferences ("I love/like/prefer/hate X",
// "my favourite X is Y"), identity ("my name is", "I'm a", "I work as",
// "I live in"), plans ("I'm going/planning to", "next week I will"),
// decisions ("we decided to", "I've decided to", "let's go with") and
// dates ("my birthday is"). It misses anything said indirectly, in the
// third person, across several turns, or with irony: the Bedrock extractor
// is the one for production.
type Local struct{}

// Name implements Extractor.
func (Local) Name() string { return "local-patterns-v1" }

type pattern struct {
	re         *regexp.Regexp
	kind       memory.Kind
	durability memory.Durability
	confidence float64
	render     func(who string, m []string) string
}

var (
	changeRe  = regexp.MustCompile(`(?i)\b(now|anymore|any more|no longer|these days|switched to|instead|changed my mind|not anymore|from now on)\b`)
	negatedRe = regexp.MustCompile(`(?i)\b(don't|do not|never|no longer|not)\b`)
	patterns  = []pattern{
		{regexp.MustCompile(`(?i)\bmy (?:favou?rite) ([a-z ]{2,30}?) is ([^.!?;]{2,60})`), memory.KindPreference, memory.DurabilityStandard, 0.9,
			func(who string, m []string) string { return who + "'s favourite " + m[1] + " is " + m[2] }},
		{regexp.MustCompile(`(?i)\bi (?:really |also |still |actually )?(love|like|enjoy|prefer|hate|dislike|can't stand)s? ([^.!?;]{2,80})`), memory.KindPreference, memory.DurabilityStandard, 0.8,
			func(who string, m []string) string { return who + " " + verb3(m[1]) + " " + m[2] }},
		{regexp.MustCompile(`(?i)\bi (?:don't|do not|no longer|never) (?:really )?(like|drink|eat|use|want|enjoy|play)s? ([^.!?;]{2,80})`), memory.KindPreference, memory.DurabilityStandard, 0.75,
			func(who string, m []string) string { return who + " does not " + strings.ToLower(m[1]) + " " + m[2] }},
		{regexp.MustCompile(`(?i)\bmy name is ([A-Z][\w-]+(?: [A-Z][\w-]+)?)`), memory.KindEntity, memory.DurabilityCore, 0.95,
			func(who string, m []string) string { return who + "'s name is " + m[1] }},
		{regexp.MustCompile(`(?i)\bi (?:work as|am working as|'m working as) (?:an? )?([^.!?;,]{2,60})`), memory.KindFact, memory.DurabilityStandard, 0.85,
			func(who string, m []string) string { return who + " works as " + m[1] }},
		{regexp.MustCompile(`(?i)\bi (?:live|am living|'m living) in ([A-Z][^.!?;,]{1,50})`), memory.KindFact, memory.DurabilityStandard, 0.85,
			func(who string, m []string) string { return who + " lives in " + m[1] }},
		{regexp.MustCompile(`(?i)\bi(?:'m| am) (?:an? )(vegetarian|vegan|teacher|nurse|doctor|engineer|developer|designer|student|parent|[a-z]+ist|[a-z]+er)\b`), memory.KindEntity, memory.DurabilityStandard, 0.8,
			func(who string, m []string) string { return who + " is a " + m[1] }},
		{regexp.MustCompile(`(?i)\bi(?:'m| am) (?:really )?(?:interested in|into|passionate about) ([^.!?;]{2,60})`), memory.KindInterest, memory.DurabilityStandard, 0.8,
			func(who string, m []string) string { return who + " is interested in " + m[1] }},
		{regexp.MustCompile(`(?i)\bi(?:'m| am) (?:going|planning|hoping) to ([^.!?;]{3,80})`), memory.KindFact, memory.DurabilityEphemeral, 0.7,
			func(who string, m []string) string { return who + " plans to " + m[1] }},
		{regexp.MustCompile(`(?i)\b(?:we|i)(?:'ve| have)? decided to ([^.!?;]{3,80})`), memory.KindFact, memory.DurabilityStandard, 0.85,
			func(who string, m []string) string { return who + " decided to " + m[1] }},
		{regexp.MustCompile(`(?i)\blet's go with ([^.!?;]{2,60})`), memory.KindFact, memory.DurabilityStandard, 0.75,
			func(who string, m []string) string { return who + " chose " + m[1] }},
		{regexp.MustCompile(`(?i)\bmy birthday is (?:on )?([^.!?;]{3,40})`), memory.KindFact, memory.DurabilityCore, 0.9,
			func(who string, m []string) string { return who + "'s birthday is " + m[1] }},
		{regexp.MustCompile(`(?i)\bplease (?:always |never )?(remember|call me|use|send|don't) ([^.!?;]{2,80})`), memory.KindUserRequest, memory.DurabilityStandard, 0.8,
			func(who string, m []string) string { return who + " asked to " + strings.ToLower(m[1]) + " " + m[2] }},
	}
)

func verb3(v string) string {
	switch v = strings.ToLower(v); v {
	case "can't stand":
		return "can't stand"
	default:
		return v + "s"
	}
}

// Extract implements Extractor.
func (Local) Extract(_ context.Context, turns []Turn) ([]Fact, error) {
	var out []Fact
	for _, t := range turns {
		if smallTalk(t.Text) || t.Speaker == "" {
			continue
		}
		for _, sentence := range regexp.MustCompile(`[.!?;]+\s*`).Split(t.Text, -1) {
			for _, p := range patterns {
				m := p.re.FindStringSubmatch(sentence)
				if m == nil {
					continue
				}
				for i := range m {
					m[i] = strings.TrimSpace(strings.TrimRight(m[i], " ,"))
				}
				text := p.render(t.Speaker, m)
				out = append(out, Fact{Text: text, Kind: p.kind, Confidence: p.confidence, Durability: p.durability,
					Entity: t.Speaker, Change: changeRe.MatchString(sentence), Negated: negatedRe.MatchString(sentence),
					Sources: []string{t.ID}})
				break // one fact per sentence: the first, most specific pattern
			}
		}
	}
	return out, nil
}
