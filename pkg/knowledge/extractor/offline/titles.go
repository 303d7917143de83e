package offline

// Titles of works beyond the cue words of titleCues (issue 42): rules that
// hold for English titles, whatever the title.

// writingVerbs name a work by what its author did ("Ishiguro wrote Klara
// and the Sun"). They cue a book only before a title of several words: "I
// wrote Ana" names a person, not a book.
var writingVerbs = set(`wrote write writes writing written rewrote rewrite rewriting`)

// workCue returns the kind of work the words before token i name
// (titleCue), or "book" right after a writing verb when the name is of
// several words (multi); "" otherwise.
func (a *analysis) workCue(i int, multi bool) string {
	if c := a.titleCue(i); c != "" {
		return c
	}
	if multi && i > 0 && a.toks[i-1].kind == tWord && writingVerbs[a.low(i-1)] {
		return "book"
	}
	return ""
}

// titleAnd returns where a title that goes on across "and" ends, given
// its capitalized run ends at token j: "and", an article, then
// capitalized words joined by connectors ("Klara and the Sun", "Zen and
// the Art of Motorcycle Maintenance"); j when it does not go on. The
// article keeps two names apart: "Dune and Emma" are two.
func (a *analysis) titleAnd(j, end int) int {
	if j+2 >= end || a.low(j) != "and" {
		return j
	}
	k := j + 1
	switch a.low(k) {
	case "the", "a", "an":
		k++
	default:
		return j
	}
	if !a.isCapWord(k) {
		return j
	}
	for k < end {
		if a.isCapWord(k) {
			k++
			continue
		}
		if nameConnectors[a.low(k)] && a.low(k) != "and" && k+1 < end && a.isCapWord(k+1) {
			k += 2
			continue
		}
		break
	}
	return k
}

// commaTitleEnd reports whether token k can end a title of capitalized
// words joined by commas ("Gödel, Escher, Bach"): the end of the clause,
// a punctuation mark but a comma, or a lower-case word that does not go
// on with a list ("when I was nineteen", not "and Hofstadter").
func (a *analysis) commaTitleEnd(k, end int) bool {
	if k >= end {
		return true
	}
	t := a.toks[k]
	switch t.kind {
	case tPunct:
		return t.text != ","
	case tWord:
		return !t.cap && t.low != "and" && t.low != "or" && t.low != "nor"
	}
	return false
}

// hasAnd reports whether tokens [i, j) hold "and": a title joined by
// titleAnd.
func (a *analysis) hasAnd(i, j int) bool {
	for k := i; k < j; k++ {
		if a.low(k) == "and" {
			return true
		}
	}
	return false
}
