package extract

import (
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// A slot is an attribute of a subject, written "family" or
// "family:qualifier". Single-valued slots hold one value at a time, so two
// facts giving one such slot different values conflict. In keyed families
// the qualifier names the thing the fact is about ("diet:gluten",
// "preference:jazz"), so facts conflict only when they give the same
// slot opposite polarity ("loves jazz" and "hates jazz").
//
// The families, with the importance and durability the offline extractor
// gives their facts (the LLM extractor is asked for its own, and falls back
// to these):
//
//	family        example                                kind        importance  durability  values
//	name          "my name is Ana Souza"                 entity      0.9         core        single
//	birthday      "my birthday is 14 July"               fact        0.9         core        single
//	age           "I'm 34", "I turned 40"                entity      0.8         standard    single
//	origin        "I'm from Brazil", "I grew up in Porto" entity      0.8         core        single
//	home          "I live in Lisbon", "I moved to Rome"  fact        0.8         standard    single
//	employer      "I work at Acme", "I lost my job"      fact        0.8         standard    single
//	occupation    "I work as a nurse", "I'm a teacher"   entity      0.8         standard    single
//	relationship  "my manager is Li", "my wife Ana"      entity      0.9         core        single for spouse, partner,
//	                                                                                          parents and manager; keyed otherwise
//	allergy       "I'm allergic to penicillin"           fact        0.9         core        keyed
//	health        "I have asthma"                        fact        0.9         core        keyed
//	diet          "I don't eat gluten", "I'm vegan"      preference  0.8         standard    keyed
//	education     "I study law", "I graduated from MIT"  fact        0.7         standard    keyed
//	pet           "I have a dog named Max"               fact        0.7         standard    keyed
//	favorite      "my favourite food is ramen"           preference  0.7         standard    single (per category)
//	preference    "I love jazz", "I hate olives"         preference  0.65        standard    keyed
//	interest      "I'm passionate about fashion"         interest    0.6         standard    keyed
//	activity      "I've been learning guitar"            interest    0.6         standard    keyed
//	use           "our team uses Jira", "I switched to    fact        0.6         standard    keyed
//	              VS Code", "I don't use Neovim anymore"
//	plan          "I'm moving to Berlin in March"        fact        0.6 dated   standard    keyed
//	                                                                 0.5 undated ephemeral
//	request       "please always answer in French"       user_request 0.8        standard    keyed
//	state         "I'm exhausted"                        fact        0.3         ephemeral   keyed
//	(none)        other first-person statements          fact        0.5         standard    -
//	              feelings about something               fact        0.4         ephemeral   -
//	              opinions ("I believe ...")             fact        0.4         standard    -
//
// Health, allergies, identity and relationships are core and important
// because getting them wrong harms the user; preferences and interests
// matter less and change; plans matter until their date; transient states
// (tired, busy) matter for a day or two.
type family struct {
	kind       memory.Kind
	importance float64
	durability memory.Durability
	single     bool
}

var families = map[string]family{
	"name":         {memory.KindEntity, 0.9, memory.DurabilityCore, true},
	"birthday":     {memory.KindFact, 0.9, memory.DurabilityCore, true},
	"age":          {memory.KindEntity, 0.8, memory.DurabilityStandard, true},
	"origin":       {memory.KindEntity, 0.8, memory.DurabilityCore, true},
	"home":         {memory.KindFact, 0.8, memory.DurabilityStandard, true},
	"employer":     {memory.KindFact, 0.8, memory.DurabilityStandard, true},
	"occupation":   {memory.KindEntity, 0.8, memory.DurabilityStandard, true},
	"relationship": {memory.KindEntity, 0.9, memory.DurabilityCore, false},
	"allergy":      {memory.KindFact, 0.9, memory.DurabilityCore, false},
	"health":       {memory.KindFact, 0.9, memory.DurabilityCore, false},
	"diet":         {memory.KindPreference, 0.8, memory.DurabilityStandard, false},
	"education":    {memory.KindFact, 0.7, memory.DurabilityStandard, false},
	"pet":          {memory.KindFact, 0.7, memory.DurabilityStandard, false},
	"favorite":     {memory.KindPreference, 0.7, memory.DurabilityStandard, true},
	"preference":   {memory.KindPreference, 0.65, memory.DurabilityStandard, false},
	"interest":     {memory.KindInterest, 0.6, memory.DurabilityStandard, false},
	"activity":     {memory.KindInterest, 0.6, memory.DurabilityStandard, false},
	"plan":         {memory.KindFact, 0.6, memory.DurabilityStandard, false},
	"use":          {memory.KindFact, 0.6, memory.DurabilityStandard, false},
	"request":      {memory.KindUserRequest, 0.8, memory.DurabilityStandard, false},
	"state":        {memory.KindFact, 0.3, memory.DurabilityEphemeral, false},
}

// singleRelations are the relationships one has one of at a time.
var singleRelations = map[string]bool{
	"spouse": true, "wife": true, "husband": true, "partner": true, "boyfriend": true, "girlfriend": true,
	"fiance": true, "fiancee": true, "manager": true, "boss": true, "mother": true, "father": true,
	"mom": true, "dad": true, "mum": true,
}

// singleValued reports whether a slot holds one value at a time.
func singleValued(slot string) bool {
	fam, q, _ := strings.Cut(slot, ":")
	if fam == "relationship" {
		return singleRelations[q]
	}
	return families[fam].single
}

// normalizeSlot lower-cases a slot and folds its spacing; the qualifier
// keeps its words ("preference:green tea").
func normalizeSlot(s string) string {
	s = memory.NormalizeText(s)
	fam, q, ok := strings.Cut(s, ":")
	fam = strings.TrimSpace(fam)
	if fam == "favourite" {
		fam = "favorite"
	}
	if !ok {
		return fam
	}
	return fam + ":" + strings.TrimSpace(q)
}

// normalizeValue is the form two slot values are compared in.
func normalizeValue(v string) string {
	v = memory.NormalizeText(strings.Trim(v, " .,!?;:\"'"))
	for _, a := range []string{"the ", "a ", "an "} {
		v = strings.TrimPrefix(v, a)
	}
	return v
}

// orgSubjects are the subjects that mean the org itself. A fact is about
// the org only when its subject is one of these or the org's id: "we as a
// company", never "we" alone (a family, a team, two friends).
var orgSubjects = map[string]bool{
	"the company": true, "our company": true, "company": true, "we as a company": true,
	"the organization": true, "our organization": true, "the organisation": true, "our organisation": true,
	"the org": true, "our org": true, "org": true,
}

// aboutOrg reports whether subject names the org orgID itself.
func aboutOrg(subject, orgID string) bool {
	s := memory.NormalizeSubject(subject)
	return orgSubjects[s] || orgSubjects["the "+s] || (s != "" && s == memory.NormalizeSubject(orgID))
}
