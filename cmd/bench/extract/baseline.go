package main

import (
	"context"
	"regexp"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// baseline is a frozen copy of the offline extractor as it was before the
// rewrite of issue 15 (local-patterns-v1), with its own small-talk filter,
// kept here so that the benchmark can always measure it beside the current
// extractors. Do not improve it: it is the yardstick.
type baseline struct{}

// Name implements extract.Extractor.
func (baseline) Name() string { return "local-patterns-v1" }

type basePattern struct {
	re         *regexp.Regexp
	kind       memory.Kind
	durability memory.Durability
	confidence float64
	render     func(who string, m []string) string
}

var (
	baseChange   = regexp.MustCompile(`(?i)\b(now|anymore|any more|no longer|these days|switched to|instead|changed my mind|not anymore|from now on)\b`)
	baseNegated  = regexp.MustCompile(`(?i)\b(don't|do not|never|no longer|not)\b`)
	baseSentence = regexp.MustCompile(`[.!?;]+\s*`)
	basePatterns = []basePattern{
		{regexp.MustCompile(`(?i)\bmy (?:favou?rite) ([a-z ]{2,30}?) is ([^.!?;]{2,60})`), memory.KindPreference, memory.DurabilityStandard, 0.9,
			func(who string, m []string) string { return who + "'s favourite " + m[1] + " is " + m[2] }},
		{regexp.MustCompile(`(?i)\bi (?:really |also |still |actually )?(love|like|enjoy|prefer|hate|dislike|can't stand)s? ([^.!?;]{2,80})`), memory.KindPreference, memory.DurabilityStandard, 0.8,
			func(who string, m []string) string { return who + " " + baseVerb3(m[1]) + " " + m[2] }},
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

func baseVerb3(v string) string {
	switch v = strings.ToLower(v); v {
	case "can't stand":
		return "can't stand"
	default:
		return v + "s"
	}
}

func baseSmallTalk(text string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!?,"))
	if len(strings.Fields(t)) < 3 {
		return true
	}
	for _, p := range []string{"hi ", "hello", "hey ", "thanks", "thank you", "good morning", "good night", "bye", "see you", "ok ", "okay"} {
		if strings.HasPrefix(t, p) && len(strings.Fields(t)) < 6 {
			return true
		}
	}
	return false
}

// Extract implements extract.Extractor.
func (baseline) Extract(_ context.Context, turns []extract.Turn) ([]extract.Fact, error) {
	var out []extract.Fact
	for _, t := range turns {
		if baseSmallTalk(t.Text) || t.Speaker == "" {
			continue
		}
		for _, sentence := range baseSentence.Split(t.Text, -1) {
			for _, p := range basePatterns {
				m := p.re.FindStringSubmatch(sentence)
				if m == nil {
					continue
				}
				for i := range m {
					m[i] = strings.TrimSpace(strings.TrimRight(m[i], " ,"))
				}
				out = append(out, extract.Fact{Text: p.render(t.Speaker, m), Kind: p.kind, Confidence: p.confidence, Durability: p.durability,
					Subject: t.Speaker, Change: baseChange.MatchString(sentence), Negated: baseNegated.MatchString(sentence),
					Sources: []string{t.ID}})
				break
			}
		}
	}
	return out, nil
}
