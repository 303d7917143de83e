package offline

// timeSpan is a time expression: tokens [from, to), its kind ("time",
// "duration" or "frequency"), the token where its value starts (after a
// leading preposition), and the tense it implies, if any.
type timeSpan struct {
	from, to, valueFrom int
	kind                string
	tense               string
}

// isYear reports whether t is a plausible year (1900-2099).
func isYear(t token) bool {
	return t.kind == tNum && t.num >= 1900 && t.num <= 2099 && t.num == float64(int(t.num)) && len(t.text) == 4
}

func isDayNumber(t token) bool {
	if t.kind == tNum {
		return t.num >= 1 && t.num <= 31 && t.num == float64(int(t.num))
	}
	// 5th, 21st, 2nd, 3rd
	l := t.low
	if n := len(l); n >= 3 && n <= 4 {
		suf := l[n-2:]
		if (suf == "st" || suf == "nd" || suf == "rd" || suf == "th") && allDigits(l[:n-2]) {
			return true
		}
	}
	return false
}

// isNumberWord reports whether t is a number, in digits or words.
func isNumberWord(t token) (float64, bool) {
	if t.kind == tNum {
		return t.num, true
	}
	if v, ok := numberWords[t.low]; ok {
		return v, true
	}
	return 0, false
}

// findTimes marks the time expressions of toks[from:to]. at[i] is set to
// the index+1 of the span covering token i.
func findTimes(toks []token, from, to int, spans []timeSpan, at []int) []timeSpan {
	low := func(i int) string {
		if i < to && i >= from {
			return toks[i].low
		}
		return ""
	}
	add := func(s timeSpan) {
		if s.to <= s.from {
			return
		}
		for k := s.from; k < s.to; k++ {
			if at[k] != 0 {
				return
			}
		}
		spans = append(spans, s)
		for k := s.from; k < s.to; k++ {
			at[k] = len(spans)
		}
	}
	for i := from; i < to; i++ {
		if at[i] != 0 || toks[i].kind == tPunct || toks[i].kind == tQuote {
			continue
		}
		w := low(i)
		switch {
		case timeWords[w]:
			s := timeSpan{from: i, to: i + 1, valueFrom: i, kind: "time"}
			if futureCues[w] || w == "tonight" {
				s.tense = "future"
			} else if pastCues[w] {
				s.tense = "past"
			}
			add(s)
		case (w == "last" || w == "next" || w == "this" || w == "past" || w == "coming" || w == "every" || w == "each" || w == "upcoming") &&
			(timeNouns[low(i+1)] || weekdays[low(i+1)] || months[low(i+1)] > 0 || timeUnits[low(i+1)] != ""):
			s := timeSpan{from: i, to: i + 2, valueFrom: i, kind: "time"}
			if w == "every" || w == "each" {
				s.kind = "frequency"
			}
			if w == "next" || w == "coming" || w == "upcoming" {
				s.tense = "future"
			} else if w == "last" || w == "past" {
				s.tense = "past"
			}
			add(s)
		case (w == "the" || w == "a") && low(i+1) == "other" && low(i+2) == "day":
			add(timeSpan{from: i, to: i + 3, valueFrom: i, kind: "time", tense: "past"})
		case w == "ago" || w == "back" && i > from && timeUnits[low(i-1)] != "":
			// N units ago, a few weeks ago, a while ago, long ago, two days
			// back
			j := i - 1
			if j >= from && (timeUnits[low(j)] != "" || low(j) == "while" || low(j) == "long") {
				k := j - 1
				for k >= from && k > i-5 {
					if _, ok := isNumberWord(toks[k]); ok || low(k) == "of" || low(k) == "a" || low(k) == "few" || low(k) == "couple" || low(k) == "several" {
						k--
						continue
					}
					break
				}
				add(timeSpan{from: k + 1, to: i + 1, valueFrom: k + 1, kind: "time", tense: "past"})
			}
		case w == "in" || w == "on" || w == "since" || w == "during" || w == "until" || w == "till" || w == "by" ||
			w == "back" || w == "around" || w == "before" || w == "after" || w == "over" || w == "throughout":
			if j := dateEnd(toks, i+1, to); j > i+1 {
				add(timeSpan{from: i, to: j, valueFrom: i + 1, kind: "time"})
			} else if (w == "in" || w == "during" || w == "over") && low(i+1) == "the" && (seasons[low(i+2)] || low(i+2) == "weekend" || low(i+2) == "morning" || low(i+2) == "evening" || low(i+2) == "afternoon" || low(i+2) == "past") {
				end := i + 3
				if low(i+2) == "past" {
					end = i + 2
				}
				add(timeSpan{from: i, to: end, valueFrom: i + 2, kind: "time"})
			}
		case w == "for":
			// for 3 years, for a few months: a duration.
			j := i + 1
			for j < to && j < i+4 && (low(j) == "a" || low(j) == "few" || low(j) == "couple" || low(j) == "of" || low(j) == "several" || low(j) == "the" || low(j) == "past" || low(j) == "last") {
				j++
			}
			if j < to {
				if _, ok := isNumberWord(toks[j]); ok || j > i+1 {
					k := j
					if ok {
						k++
					}
					if k < to && timeUnits[low(k)] != "" {
						add(timeSpan{from: i, to: k + 1, valueFrom: i + 1, kind: "duration"})
					}
				}
			}
		case months[w] > 0 || weekdays[w]:
			if toks[i].cap || toks[i].allCaps {
				if j := dateEnd(toks, i, to); j > i && (w != "may" || j > i+1 || (i > from && (low(i-1) == "in" || low(i-1) == "of"))) {
					add(timeSpan{from: i, to: j, valueFrom: i, kind: "time"})
				}
			}
		case isYear(toks[i]) && i > from && (low(i-1) == "in" || low(i-1) == "since"):
			add(timeSpan{from: i - 1, to: i + 1, valueFrom: i, kind: "time"})
		case toks[i].kind == tNum && (low(i+1) == "am" || low(i+1) == "pm" || low(i+1) == "a.m" || low(i+1) == "p.m"):
			f := i
			if i > from && low(i-1) == "at" {
				f = i - 1
			}
			add(timeSpan{from: f, to: i + 2, valueFrom: i, kind: "time"})
		case (w == "once" || w == "twice") && (low(i+1) == "a" || low(i+1) == "per" || low(i+1) == "every") && timeUnits[low(i+2)] != "":
			add(timeSpan{from: i, to: i + 3, valueFrom: i, kind: "frequency"})
		case (w == "daily" || w == "weekly" || w == "monthly" || w == "yearly" || w == "annually"):
			add(timeSpan{from: i, to: i + 1, valueFrom: i, kind: "frequency"})
		}
	}
	return spans
}

// dateEnd returns the end of a date starting at i ("May", "May 5",
// "May 5th, 2023", "5 May 2023", "the 5th of May", "2019", "Monday"),
// or i when there is none.
func dateEnd(toks []token, i, to int) int {
	if i >= to {
		return i
	}
	low := func(k int) string {
		if k < to {
			return toks[k].low
		}
		return ""
	}
	j := i
	if low(j) == "the" && j+1 < to && isDayNumber(toks[j+1]) && low(j+2) == "of" && months[low(j+3)] > 0 {
		j += 4
	} else if isDayNumber(toks[j]) && months[low(j+1)] > 0 {
		j += 2
	} else if months[low(j)] > 0 && (toks[j].cap || toks[j].allCaps) {
		j++
		if j < to && isDayNumber(toks[j]) && !isYear(toks[j]) {
			j++
		}
	} else if weekdays[low(j)] && (toks[j].cap || toks[j].allCaps) {
		j++
		if low(j) == "morning" || low(j) == "night" || low(j) == "evening" || low(j) == "afternoon" {
			j++
		}
		return j
	} else if isYear(toks[j]) {
		return j + 1
	} else {
		return i
	}
	if j < to && toks[j].text == "," && j+1 < to && isYear(toks[j+1]) {
		j += 2
	} else if j < to && isYear(toks[j]) {
		j++
	}
	return j
}
