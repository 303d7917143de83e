package related

import (
	"slices"
	"sort"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Type inference: a small is-a table, so that a question about a broad type
// ("which people did we talk about", "what places...") reaches entities an
// extractor typed, or named, more narrowly ("artist", "sister", "city").
// It is applied when a query is expanded, not when knowledge is indexed, so
// it covers every extractor's types (the offline lexicon's and a model's
// free-form ones) without re-extraction, and a change of the table needs no
// rebuild.

// isA maps a broad type to the narrower types and nouns that are kinds of
// it. Each narrower word inherits every broader type listed for it.
var isA = map[string]string{
	"person": `artist painter sculptor musician singer songwriter composer guitarist drummer pianist dancer actor
		actress writer author poet journalist photographer filmmaker director chef cook baker teacher nurse doctor
		physician surgeon dentist vet engineer developer programmer designer lawyer scientist researcher professor
		student therapist counselor psychologist coach mentor trainer instructor athlete player volunteer activist
		friend bestie buddy pal roommate neighbor neighbour boss manager coworker colleague classmate teammate
		mom mother mum dad father parent sister brother sibling son daughter kid child baby wife husband spouse
		partner boyfriend girlfriend fiance fiancee grandma grandmother grandpa grandfather grandparent grandson
		granddaughter grandchild aunt uncle cousin niece nephew family relative man woman boy girl guy lady
		speaker customer client patient member leader founder owner`,
	"family": `mom mother mum dad father parent sister brother sibling son daughter kid child baby wife husband
		spouse grandma grandmother grandpa grandfather grandparent grandson granddaughter grandchild aunt uncle
		cousin niece nephew relative`,
	"artist": `painter sculptor musician singer songwriter composer guitarist drummer pianist dancer actor actress
		writer author poet photographer filmmaker`,
	"place": `city town village country state province region island continent park beach museum library gym
		school university college church hospital restaurant cafe bar pub office home house apartment lake river
		mountain forest garden zoo farm store shop mall market airport station studio theater theatre stadium
		campus neighborhood neighbourhood countryside coast downtown cabin cottage hotel gallery bakery street
		shelter center centre`,
	"animal": `pet dog puppy cat kitten horse pony bird parrot rabbit bunny hamster turtle snake lizard fish
		guinea_pig cow pig goat sheep chicken duck`,
	"pet":  `dog puppy cat kitten hamster rabbit bunny parrot turtle guinea_pig goldfish`,
	"book": `novel memoir biography autobiography cookbook comic manga textbook poem poetry story`,
	"sport": `soccer football basketball baseball tennis golf hockey volleyball rugby cricket badminton boxing
		wrestling karate judo taekwondo fencing archery bowling skiing snowboarding surfing skateboarding swimming
		running jogging cycling biking hiking climbing bouldering kayaking rowing sailing diving marathon triathlon
		yoga pilates gymnastics skating`,
	"instrument": `piano guitar violin viola cello bass drums drum flute clarinet saxophone trumpet trombone harp
		ukulele banjo keyboard`,
	"music":   `song album concert band playlist piano guitar violin`,
	"food":    `pizza pasta sushi ramen bread sandwich burger taco salad soup steak cheese chocolate cake cookie pie pancake dessert curry fruit vegetable`,
	"drink":   `coffee tea wine beer juice soda milk latte smoothie`,
	"vehicle": `car truck van suv motorcycle bike bicycle scooter boat kayak canoe bus train plane`,
	"event": `wedding birthday party concert festival conference trip vacation holiday race graduation meeting
		interview class workshop course lesson seminar retreat reunion ceremony parade fundraiser exhibition
		performance funeral picnic anniversary celebration game match tournament competition`,
	"hobby": `painting drawing reading writing journaling cooking baking gardening photography knitting sewing
		pottery woodworking camping fishing hiking dancing singing gaming chess meditation volunteering`,
	"organization": `company business charity nonprofit club team group community church school university band choir`,
	"movie":        `film documentary`,
	"show":         `series sitcom podcast`,
	"art":          `painting drawing sketch sculpture mural portrait pottery photography`,
	// An activity is any hobby or sport (unions), and a few pastimes
	// neither names: "what activities does Ana do?" asks for them all.
	"activity": `shopping traveling travelling`,
}

// unions are the types whose kinds include every kind of other types.
var unions = map[string][]string{"activity": {"hobby", "sport"}}

// typeAliases are the words that name a type of the table in another form
// (plurals the lemmatizer does not know).
var typeAliases = map[string]string{"people": "person", "persons": "person", "folks": "person",
	"folk": "person", "humans": "person", "human": "person", "individuals": "person", "someone": "person",
	"relatives": "family", "families": "family", "places": "place", "locations": "place", "location": "place",
	"cities": "city", "countries": "country", "animals": "animal", "pets": "pet", "books": "book",
	"sports": "sport", "instruments": "instrument", "foods": "food", "drinks": "drink", "vehicles": "vehicle",
	"events": "event", "hobbies": "hobby", "activities": "activity", "pastime": "hobby", "pastimes": "hobby", "organizations": "organization", "movies": "movie", "films": "movie",
	"shows": "show", "artists": "artist"}

// narrower is isA turned into word lists; broader its inverse.
var narrower, broader = func() (map[string][]string, map[string][]string) {
	n, b := map[string][]string{}, map[string][]string{}
	for t, words := range isA {
		for _, u := range unions[t] {
			words += " " + isA[u]
		}
		for _, w := range strings.Fields(words) {
			w = strings.ReplaceAll(w, "_", " ")
			n[t] = append(n[t], w)
			b[w] = append(b[w], t)
		}
	}
	for _, m := range []map[string][]string{n, b} {
		for k, v := range m {
			sort.Strings(v)
			m[k] = slices.Compact(v)
		}
	}
	return n, b
}()

// typeOf returns the table type a normalized term names ("people" is
// "person"), or "".
func typeOf(term string) string {
	if t, ok := typeAliases[term]; ok {
		return t
	}
	if _, ok := narrower[term]; ok {
		return term
	}
	return ""
}

// NarrowerTypes returns the kinds of the type term names, by the is-a
// table: "person" (or "people") gives "artist", "sister"... Nil when the
// term names no type of the table.
func NarrowerTypes(term string) []string {
	t := typeOf(memory.NormalizeTerm(term))
	if t == "" {
		return nil
	}
	out := []string{}
	if t != memory.NormalizeTerm(term) {
		out = append(out, t)
	}
	return append(out, narrower[t]...)
}

// InferTypes returns the broader types of a type or noun by the is-a
// table: "artist" is a "person", "city" a "place"; nil when the table does
// not know the word.
func InferTypes(word string) []string {
	return broader[memory.NormalizeTerm(word)]
}
