package en

import "strings"

// irregularPlurals are the nouns whose singular is not a suffix away, and
// nouns that only look plural.
var irregularPlurals = map[string]string{"children": "child", "people": "person", "men": "man", "women": "woman",
	"feet": "foot", "teeth": "tooth", "mice": "mouse", "geese": "goose", "kids": "kid", "grandkids": "grandkid",
	"parents": "parent", "series": "series", "species": "species", "sheep": "sheep", "fish": "fish", "deer": "deer",
	"knives": "knife", "wives": "wife", "lives": "life", "leaves": "leaf", "wolves": "wolf", "shelves": "shelf",
	"halves": "half", "loaves": "loaf", "calves": "calf", "cookies": "cookie", "movies": "movie", "pies": "pie",
	"ties": "tie", "lies": "lie", "brownies": "brownie", "selfies": "selfie", "hippies": "hippie",
	"clothes": "clothes", "news": "news", "jeans": "jeans", "glasses": "glasses", "pants": "pants",
	"shoes": "shoe", "tacos": "taco", "photos": "photo", "pianos": "piano", "videos": "video", "radios": "radio",
	"potatoes": "potato", "tomatoes": "tomato", "heroes": "hero", "dumplings": "dumpling", "noodles": "noodle"}

// Singular returns the singular of an English noun in lower case ("sports"
// → "sport", "cities" → "city", "people" → "person"); other words come back
// unchanged. The offline knowledge extractor indexes knowledge under it,
// and the query translators look terms up with it, so both sides agree.
func Singular(w string) string {
	if s, ok := irregularPlurals[w]; ok {
		return s
	}
	n := len(w)
	switch {
	case n < 4 || !strings.HasSuffix(w, "s"):
		return w
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") ||
		strings.HasSuffix(w, "ics"):
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") ||
		strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes"):
		return w[:n-2]
	}
	return w[:n-1]
}

// IrregularPlural reports whether w is one of the nouns Singular knows by
// name rather than by ending ("children", "people"; "series", whose
// singular is itself).
func IrregularPlural(w string) bool { return irregularPlurals[w] != "" }
