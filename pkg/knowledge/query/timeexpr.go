package query

import (
	"strconv"
	"strings"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// Range is a time range [Start, End); a zero bound is open.
type Range struct {
	Start, End time.Time
}

// ResolveTime resolves a time expression ("yesterday", "last month", "in
// May 2023", "3 weeks ago", "before 8 May 2023"...: the grammar is in the
// package documentation) against now, in now's location. The whole text
// must be one expression. Errors: EINVALID when it is not one.
func ResolveTime(expr string, now time.Time) (Range, error) {
	toks := tokenize(expr)
	for len(toks) > 0 && toks[len(toks)-1].punct != 0 {
		toks = toks[:len(toks)-1]
	}
	p := timeParser{toks: toks, now: now}
	r, n, ok := p.at(0)
	if !ok || n != len(toks) {
		return Range{}, memory.Errorf(memory.EINVALID, "time expression %q: not understood", expr)
	}
	return r, nil
}

// timeParser matches time expressions in tokens. In free text (strict),
// words that are not always times ("may", "march", "summer", "monday", a
// bare year) count only where they clearly are: capitalized inside a
// sentence, after a preposition of time, or followed by a day or a year.
type timeParser struct {
	toks   []token
	now    time.Time
	strict bool
	inPart bool // within periodPart, which does not nest: every match reads a bounded number of tokens
}

func (p *timeParser) low(i int) string {
	if i >= 0 && i < len(p.toks) && p.toks[i].punct == 0 {
		return p.toks[i].low
	}
	if i >= 0 && i < len(p.toks) {
		return string(p.toks[i].punct)
	}
	return ""
}

func (p *timeParser) today() time.Time {
	y, m, d := p.now.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, p.now.Location())
}

// at matches a time expression starting at token i: an optional relation
// (before, after, since, until, between... and...) or preposition, then a
// point or span. It returns the range and the number of tokens used.
func (p *timeParser) at(i int) (Range, int, bool) {
	switch w := p.low(i); w {
	case "before", "after", "since", "until", "till", "by":
		k := i + 1
		if w == "by" && p.low(k) == "the" && p.low(k+1) == "end" && p.low(k+2) == "of" {
			k += 3
		}
		r, n, ok := p.point(k, true)
		if !ok {
			return Range{}, 0, false
		}
		switch w {
		case "before":
			r = Range{End: r.Start}
		case "after":
			r = Range{Start: r.End}
		case "since":
			r = Range{Start: r.Start}
		default:
			r = Range{End: r.End}
		}
		return r, k - i + n, true
	case "between", "from":
		a, n, ok := p.point(i+1, true)
		sep := p.low(i + 1 + n)
		if !ok || (w == "between" && sep != "and") || (w == "from" && sep != "to" && sep != "until" && sep != "till") {
			if w == "from" && ok { // from May: since May
				return Range{Start: a.Start}, n + 1, true
			}
			return Range{}, 0, false
		}
		b, m, ok := p.point(i+2+n, true)
		if !ok || !b.End.After(a.Start) {
			return Range{}, 0, false
		}
		return Range{Start: a.Start, End: b.End}, n + m + 2, true
	case "at":
		// at the weekend, at Christmas, at the end of May: "at" dates
		// only these; "at June's place" is a name, not a month
		r, n, ok := p.periodPart(i + 1)
		if !ok {
			r, n, ok = p.weekendOrBeforeLast(i + 1)
		}
		if !ok {
			r, n, ok = p.holidayAt(i+1, 2)
		}
		if !ok {
			return Range{}, 0, false
		}
		return r, n + 1, true
	case "in", "on", "during", "around", "of", "over", "throughout", "within":
		// in 3 days, in two weeks, in a few months: that day or that
		// calendar unit ahead, as "ago" is behind
		if r, n, ok := p.ahead(i + 1); ok && w == "in" && !backWords[p.low(i+1+n)] {
			return r, n + 1, true
		}
		if r, n, ok := p.point(i+1, true); ok {
			return r, n + 1, true
		}
		return Range{}, 0, false
	}
	return p.point(i, false)
}

// Vague counts: "a couple of" days ago is 2 to 3 days ago.
var vague = map[string][2]int{"couple": {2, 3}, "few": {2, 5}, "several": {3, 7}}

var numberWords = map[string]int{"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30}

var units = map[string]string{"day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
	"months": "month", "year": "year", "years": "year"}

var months = map[string]time.Month{"january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3,
	"april": 4, "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
	"september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11, "december": 12, "dec": 12}

var weekdays = map[string]time.Weekday{"sunday": 0, "monday": 1, "tuesday": 2, "wednesday": 3, "thursday": 4,
	"friday": 5, "saturday": 6}

// weekdayAbbrs are the short weekday names, read only after "last",
// "this" or "next" ("last Fri"): alone, "sun", "sat" and "wed" are words.
var weekdayAbbrs = map[string]time.Weekday{"sun": 0, "mon": 1, "tue": 2, "tues": 2, "wed": 3, "thu": 4,
	"thur": 4, "thurs": 4, "fri": 5, "sat": 6}

// isWeekday reports whether w names a weekday, in full or short.
func isWeekday(w string) bool {
	_, full := weekdays[w]
	_, short := weekdayAbbrs[w]
	return full || short
}

// seasons map to their first month (meteorological, northern hemisphere).
var seasons = map[string]time.Month{"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}

// count reads a count at i: a number, a number word, or a vague count ("a
// few", "a couple of", "several"). It returns the range of the count and
// the tokens used.
func (p *timeParser) count(i int) (lo, hi, n int, ok bool) {
	w := p.low(i)
	if w == "a" || w == "the" {
		if v, ok := vague[p.low(i+1)]; ok {
			n := 2
			if p.low(i+2) == "of" {
				n++
			}
			return v[0], v[1], n, true
		}
	}
	if v, ok := vague[w]; ok {
		n := 1
		if p.low(i+1) == "of" {
			n++
		}
		return v[0], v[1], n, true
	}
	if v, ok := numberWords[w]; ok {
		return v, v, 1, true
	}
	if i < len(p.toks) && p.toks[i].num > 0 && p.toks[i].num < 1000 {
		return p.toks[i].num, p.toks[i].num, 1, true
	}
	return 0, 0, 0, false
}

// point matches a time point or span at i (basePoint), and a part of the
// day after a day ("Friday night", "yesterday morning", "last Saturday
// evening": the day still). afterPrep says a preposition of time came
// before, which makes ambiguous words times.
func (p *timeParser) point(i int, afterPrep bool) (Range, int, bool) {
	r, n, ok := p.basePoint(i, afterPrep)
	if ok && partsOfDay[p.low(i+n)] && !r.Start.IsZero() && !r.End.After(r.Start.AddDate(0, 0, 1)) {
		n++
	}
	return r, n, ok
}

// partsOfDay narrow a day without leaving it.
var partsOfDay = map[string]bool{"morning": true, "afternoon": true, "evening": true, "night": true}

// basePoint matches a time point or span at i.
func (p *timeParser) basePoint(i int, afterPrep bool) (Range, int, bool) {
	today := p.today()
	w, w1, w2 := p.low(i), p.low(i+1), p.low(i+2)
	switch {
	case w == "the" && w1 == "day" && (w2 == "before" || w2 == "after") && p.low(i+3) == map[string]string{"before": "yesterday", "after": "tomorrow"}[w2]:
		d := -2
		if w2 == "after" {
			d = 2
		}
		return unitRange("day", today.AddDate(0, 0, d)), 4, true
	case w == "yesterday":
		return unitRange("day", today.AddDate(0, 0, -1)), 1, true
	case w == "today" || w == "tonight":
		return unitRange("day", today), 1, true
	case w == "tomorrow":
		return unitRange("day", today.AddDate(0, 0, 1)), 1, true
	case w == "last" && (w1 == "night" || w1 == "evening"):
		return unitRange("day", today.AddDate(0, 0, -1)), 2, true
	case w == "the" && w1 == "other" && w2 == "day":
		// a few days ago, within the week
		return Range{Start: today.AddDate(0, 0, -7), End: today}, 3, true
	case w == "later" && w1 == "today":
		return Range{Start: p.now, End: today.AddDate(0, 0, 1)}, 2, true
	case w == "later" && w1 == "this" && units[w2] != "" && !strings.HasSuffix(w2, "s"):
		u := units[w2]
		return Range{Start: p.now, End: addUnits(unitStart(u, today), u, 1)}, 3, true
	case w == "this" && (w1 == "morning" || w1 == "afternoon" || w1 == "evening"):
		return unitRange("day", today), 2, true
	case w == "earlier" && w1 == "today":
		return Range{Start: today, End: p.now}, 2, true
	case w == "earlier" && w1 == "this" && units[w2] != "":
		return Range{Start: unitStart(units[w2], today), End: p.now}, 3, true
	}
	if r, n, ok := p.periodPart(i); ok {
		return r, n, true
	}
	if r, n, ok := p.weekendOrBeforeLast(i); ok {
		return r, n, true
	}
	if r, n, ok := p.holidayAt(i, 2); ok {
		return r, n, true
	}
	// the last 3 days, the past few weeks, past week: rolling windows
	k := i
	if w == "the" {
		k++
	}
	if lw := p.low(k); lw == "last" || lw == "past" {
		if _, hi, n, ok := p.count(k + 1); ok {
			if u, mult := unitOf(p.low(k + 1 + n)); u != "" {
				return Range{Start: addUnits(p.now, u, -hi*mult), End: p.now}, k - i + n + 2, true
			}
		}
		if u, mult := unitOf(p.low(k + 1)); u != "" && (lw == "past" || k > i) && !strings.HasSuffix(p.low(k+1), "s") {
			return Range{Start: addUnits(p.now, u, -mult), End: p.now}, k - i + 2, true
		}
	}
	// last week, this month, next year, last weekend, last summer, last May,
	// last Monday, last Fri; "this past weekend" is the last one
	switch w {
	case "last", "previous", "this", "next", "coming":
		rel := map[string]int{"last": -1, "previous": -1, "this": 0, "next": 1, "coming": 1}[w]
		used := 2
		if w == "this" && w1 == "past" && (units[w2] != "" || isWeekend(w2) || isWeekday(w2) || p.isHoliday(i+2)) {
			rel, w1, used = -1, w2, 3
		}
		if u, ok := units[w1]; ok && !strings.HasSuffix(w1, "s") {
			return unitRange(u, addUnits(unitStart(u, today), u, rel)), used, true
		}
		if r, n, ok := p.holidayAt(i+used-1, rel); ok {
			return r, used - 1 + n, true
		}
		if isWeekend(w1) {
			return weekend(today, rel), used, true
		}
		if s, ok := seasons[w1]; ok {
			return p.relSeason(s, rel), used, true
		}
		if m, ok := months[w1]; ok && (len(w1) > 3 || w1 == "may") {
			return p.relMonth(m, rel), used, true
		}
		if d, ok := weekdays[w1]; ok {
			return p.relWeekday(d, rel), used, true
		}
		if d, ok := weekdayAbbrs[w1]; ok {
			return p.relWeekday(d, rel), used, true
		}
	}
	// two weekends ago: the weekend of that many weeks back
	if lo, hi, n, ok := p.count(i); ok && (isWeekend(p.low(i+n)) || p.low(i+n) == "weekends") && backWords[p.low(i+n+1)] {
		sat := unitStart("week", today).AddDate(0, 0, 5-7*hi)
		return Range{Start: sat, End: unitStart("week", today).AddDate(0, 0, 7-7*lo)}, n + 2, true
	}
	// 3 days ago, a week ago, a few months ago, a fortnight ago, two days
	// back
	if lo, hi, n, ok := p.count(i); ok && backWords[p.low(i+n+1)] {
		if u, mult := unitOf(p.low(i + n)); u != "" {
			s := unitStart(u, today)
			return Range{Start: addUnits(s, u, -hi*mult), End: addUnits(s, u, 1-lo*mult)}, n + 2, true
		}
	}
	// a week from now, two days from today
	if r, n, ok := p.ahead(i); ok && p.low(i+n) == "from" && (p.low(i+n+1) == "now" || p.low(i+n+1) == "today") {
		return r, n + 2, true
	}
	if r, n, ok := p.date(i, afterPrep); ok {
		return r, n, true
	}
	return Range{}, 0, false
}

// date matches an absolute date or a date without its year: ISO dates,
// "8 May 2023", "the 8th of May", "May 8th, 2023", "May 2023", "May of
// 2023", "May", "2022", "the summer of 2023", "summer 2023", "Monday".
func (p *timeParser) date(i int, afterPrep bool) (Range, int, bool) {
	if i >= len(p.toks) || p.toks[i].punct != 0 {
		return Range{}, 0, false
	}
	today := p.today()
	loc := p.now.Location()
	w := p.low(i)
	if t, err := time.ParseInLocation("2006-01-02", w, loc); err == nil {
		return unitRange("day", t), 1, true
	}
	if t, err := time.ParseInLocation("2006-01", w, loc); err == nil {
		return unitRange("month", t), 1, true
	}
	// the 8th of May [2023], 8th of May, 8 May [2023]
	k := i
	if w == "the" {
		k++
	}
	if d := p.dayNumber(k); d > 0 {
		j := k + 1
		if p.low(j) == "of" {
			j++
		}
		if m, ok := months[p.low(j)]; ok && (j > k+1 || k == i) {
			if y, n := p.year(j + 1); n > 0 {
				return dayOf(y, m, d, loc, j+1+n-i)
			}
			r, n, ok := p.latestDay(m, d, j+1-i)
			return r, n, ok
		}
	}
	// May 8th[,] [2023]; May[,] 2023; May of 2023; May
	if m, ok := months[w]; ok && p.monthWord(i, afterPrep) {
		if d := p.dayNumber(i + 1); d > 0 && !p.isYear(i+1) {
			if y, n := p.year(i + 2); n > 0 {
				return dayOf(y, m, d, loc, 2+n)
			}
			return p.latestDay(m, d, 2)
		}
		j := i + 1
		if p.low(j) == "of" {
			j++
		}
		if y, n := p.year(j); n > 0 {
			return unitRange("month", time.Date(y, m, 1, 0, 0, 0, 0, loc)), j + n - i, true
		}
		s := time.Date(today.Year(), m, 1, 0, 0, 0, 0, loc)
		if s.After(today) {
			s = s.AddDate(-1, 0, 0)
		}
		return unitRange("month", s), 1, true
	}
	// [the] summer [of] [2023]
	k = i
	if w == "the" {
		k++
	}
	if s, ok := seasons[p.low(k)]; ok {
		j := k + 1
		if p.low(j) == "of" {
			j++
		}
		if y, n := p.year(j); n > 0 {
			return seasonRange(y, s, loc), j + n - i, true
		}
		if afterPrep || !p.strict {
			return p.relSeason(s, 2), k + 1 - i, true
		}
		return Range{}, 0, false
	}
	// 2022
	if p.isYear(i) && (afterPrep || !p.strict) {
		return unitRange("year", time.Date(p.toks[i].num, 1, 1, 0, 0, 0, 0, loc)), 1, true
	}
	// Monday: the latest one, today included
	if d, ok := weekdays[w]; ok && (afterPrep || !p.strict || (p.toks[i].cap && !p.toks[i].start)) {
		back := (int(today.Weekday()) - int(d) + 7) % 7
		return unitRange("day", today.AddDate(0, 0, -back)), 1, true
	}
	return Range{}, 0, false
}

// monthWord reports whether the month name at i is a month here: always in
// an expression; in free text when capitalized or after a preposition of
// time, except "may" and "march", which also need a preposition, a day or a
// year unless capitalized inside a sentence.
func (p *timeParser) monthWord(i int, afterPrep bool) bool {
	if !p.strict || afterPrep || p.dayNumber(i+1) > 0 || p.isYear(i+1) || p.low(i+1) == "of" && p.isYear(i+2) {
		return true
	}
	t := p.toks[i]
	if t.poss {
		return false // "June's car": a name (a month's own is "in June's heat", after a preposition)
	}
	if t.low == "may" || t.low == "march" {
		return t.cap && !t.start
	}
	return t.cap && len(t.low) > 3
}

func (p *timeParser) isYear(i int) bool {
	return i < len(p.toks) && p.toks[i].num >= 1900 && p.toks[i].num <= 2099 && len(p.toks[i].low) == 4
}

// year reads an optional comma and a year at i.
func (p *timeParser) year(i int) (int, int) {
	if p.low(i) == "," && p.isYear(i+1) {
		return p.toks[i+1].num, 2
	}
	if p.isYear(i) {
		return p.toks[i].num, 1
	}
	return 0, 0
}

// dayNumber reads a day of the month at i: 8, 8th, 21st; 0 when none.
func (p *timeParser) dayNumber(i int) int {
	if i >= len(p.toks) || p.toks[i].punct != 0 {
		return 0
	}
	w := p.toks[i].low
	if n := len(w); n >= 3 && n <= 4 {
		switch w[n-2:] {
		case "st", "nd", "rd", "th":
			w = w[:n-2]
		}
	}
	d, err := strconv.Atoi(w)
	if err != nil || d < 1 || d > 31 || len(w) > 2 {
		return 0
	}
	return d
}

func dayOf(y int, m time.Month, d int, loc *time.Location, n int) (Range, int, bool) {
	t := time.Date(y, m, d, 0, 0, 0, 0, loc)
	if t.Day() != d {
		return Range{}, 0, false // 31 June
	}
	return unitRange("day", t), n, true
}

// latestDay is the latest (m, d) that has begun by today.
func (p *timeParser) latestDay(m time.Month, d, n int) (Range, int, bool) {
	today := p.today()
	y := today.Year()
	if time.Date(y, m, d, 0, 0, 0, 0, today.Location()).After(today) {
		y--
	}
	if d == 29 && m == time.February {
		for time.Date(y, m, d, 0, 0, 0, 0, today.Location()).Day() != 29 {
			y--
		}
	}
	return dayOf(y, m, d, today.Location(), n)
}

// relMonth: rel -1 is the latest month m that has ended, 0 the one of this
// year, 1 the first that has not begun.
func (p *timeParser) relMonth(m time.Month, rel int) Range {
	today := p.today()
	s := time.Date(today.Year(), m, 1, 0, 0, 0, 0, today.Location())
	switch {
	case rel < 0 && s.AddDate(0, 1, 0).After(today):
		s = s.AddDate(-1, 0, 0)
	case rel > 0 && !s.After(today):
		s = s.AddDate(1, 0, 0)
	}
	return unitRange("month", s)
}

// relSeason: rel -1 is the latest season s that has ended, 0 the current
// one (or this year's), 1 the first that has not begun, 2 the latest that
// has begun.
func (p *timeParser) relSeason(s time.Month, rel int) Range {
	today := p.today()
	loc := today.Location()
	y := today.Year()
	if s == time.December && today.Month() <= time.February {
		y-- // the winter that began last December
	}
	r := seasonRange(y, s, loc)
	switch rel {
	case -1:
		for r.End.After(today) {
			y--
			r = seasonRange(y, s, loc)
		}
	case 1:
		for !r.Start.After(today) {
			y++
			r = seasonRange(y, s, loc)
		}
	case 2:
		for r.Start.After(today) {
			y--
			r = seasonRange(y, s, loc)
		}
	}
	return r
}

// relWeekday: rel -1 is the latest weekday d before today, 0 the one of
// this week, 1 the first after today.
func (p *timeParser) relWeekday(d time.Weekday, rel int) Range {
	today := p.today()
	switch rel {
	case -1:
		back := (int(today.Weekday()) - int(d) + 7) % 7
		if back == 0 {
			back = 7
		}
		return unitRange("day", today.AddDate(0, 0, -back))
	case 1:
		ahead := (int(d) - int(today.Weekday()) + 7) % 7
		if ahead == 0 {
			ahead = 7
		}
		return unitRange("day", today.AddDate(0, 0, ahead))
	}
	return unitRange("day", unitStart("week", today).AddDate(0, 0, (int(d)+6)%7))
}

func seasonRange(y int, s time.Month, loc *time.Location) Range {
	start := time.Date(y, s, 1, 0, 0, 0, 0, loc)
	return Range{Start: start, End: start.AddDate(0, 3, 0)}
}

// unitStart is the start of the day, week (Monday), month or year holding t.
func unitStart(u string, t time.Time) time.Time {
	y, m, d := t.Date()
	loc := t.Location()
	switch u {
	case "week":
		day := time.Date(y, m, d, 0, 0, 0, 0, loc)
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "month":
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	case "year":
		return time.Date(y, 1, 1, 0, 0, 0, 0, loc)
	}
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

func addUnits(t time.Time, u string, n int) time.Time {
	switch u {
	case "week":
		return t.AddDate(0, 0, 7*n)
	case "month":
		return t.AddDate(0, n, 0)
	case "year":
		return t.AddDate(n, 0, 0)
	}
	return t.AddDate(0, 0, n)
}

// unitRange is the day, week, month or year that starts at unitStart(t).
func unitRange(u string, t time.Time) Range {
	s := unitStart(u, t)
	return Range{Start: s, End: addUnits(s, u, 1)}
}

// FindTime returns the range of the first time expression in free text
// ("When did Ana go camping in June?" gives June), resolved against now in
// now's location, with the strict reading of ambiguous words that
// Translate uses ("may", "march", a bare year). ok is false when the text
// names no time.
func FindTime(text string, now time.Time) (r Range, ok bool) {
	p := timeParser{toks: tokenize(text), now: now, strict: true}
	for i := range p.toks {
		if p.toks[i].punct != 0 {
			continue
		}
		if r, _, ok := p.at(i); ok {
			return r, true
		}
	}
	return Range{}, false
}

// backWords end a count of units behind today: "3 days ago", "two weeks
// back".
var backWords = map[string]bool{"ago": true, "back": true}

// unitOf reads a calendar unit word: the unit and how many of it the word
// is (a fortnight is two weeks); "" when w is none.
func unitOf(w string) (string, int) {
	if w == "fortnight" || w == "fortnights" {
		return "week", 2
	}
	return units[w], 1
}

// words reports whether the tokens from i are ws, in lower case; a word
// of ws in 's must be a possessive ("New Year's" is a holiday, "a new
// year" is not).
func (p *timeParser) words(i int, ws []string) bool {
	for j, w := range ws {
		if base, ok := strings.CutSuffix(w, "'s"); ok {
			if p.low(i+j) != base || !p.toks[i+j].poss {
				return false
			}
		} else if p.low(i+j) != w {
			return false
		}
	}
	return true
}

// weekend is the Saturday and Sunday of the week rel weeks from today's.
func weekend(today time.Time, rel int) Range {
	sat := unitStart("week", today).AddDate(0, 0, 5+7*rel)
	return Range{Start: sat, End: sat.AddDate(0, 0, 2)}
}

// isWeekend reports whether w names the weekend ("wknd" in chat).
func isWeekend(w string) bool { return w == "weekend" || w == "wknd" }

// ahead reads a count of units at i as a time ahead of today, as "ago"
// counts behind: "3 days" (in 3 days, 3 days from now) is that day, "two
// weeks" that calendar week, "a few months" the months two to five ahead.
func (p *timeParser) ahead(i int) (Range, int, bool) {
	lo, hi, n, ok := p.count(i)
	if !ok {
		return Range{}, 0, false
	}
	u, mult := unitOf(p.low(i + n))
	if u == "" {
		return Range{}, 0, false
	}
	s := unitStart(u, p.today())
	return Range{Start: addUnits(s, u, lo*mult), End: addUnits(s, u, hi*mult+1)}, n + 1, true
}

// periodParts are the words that take a third of a span: "early June",
// "mid-2022", "late last year", "the beginning of May", "the middle of
// the month", "the end of last week". The part is 0, 1 or 2 (first,
// middle, last third) and the words before the span.
var periodParts = []struct {
	words []string
	part  int
}{
	{[]string{"early"}, 0}, {[]string{"mid"}, 1}, {[]string{"late"}, 2},
	{[]string{"the", "beginning", "of"}, 0}, {[]string{"the", "start", "of"}, 0},
	{[]string{"the", "middle", "of"}, 1}, {[]string{"the", "end", "of"}, 2},
}

// periodPart matches a third of a span of a week or longer at i. The span
// may be "the week", "the month" or "the year" (this one). A shorter span
// ("early yesterday") is not read: the day's parts have no calendar.
func (p *timeParser) periodPart(i int) (Range, int, bool) {
	if p.inPart {
		return Range{}, 0, false // one part of one span: "early late May" is none
	}
	p.inPart = true
	defer func() { p.inPart = false }()
	w := p.low(i)
	// mid-May, mid-2022: one token
	if rest, ok := strings.CutPrefix(w, "mid-"); ok && rest != "" {
		sub := timeParser{toks: tokenize(rest), now: p.now, inPart: true}
		if r, n, ok := sub.point(0, true); ok && n == len(sub.toks) {
			if t, ok := third(r, 1); ok {
				return t, 1, true
			}
		}
		return Range{}, 0, false
	}
	for _, pp := range periodParts {
		n := len(pp.words)
		if !p.words(i, pp.words) {
			continue
		}
		var r Range
		var m int
		var ok bool
		if u := units[p.low(i+n+1)]; p.low(i+n) == "the" && u != "" && !strings.HasSuffix(p.low(i+n+1), "s") {
			r, m, ok = unitRange(u, p.today()), 2, true
		} else {
			r, m, ok = p.point(i+n, true)
		}
		if !ok {
			return Range{}, 0, false
		}
		if t, ok := third(r, pp.part); ok {
			return t, n + m, true
		}
		return Range{}, 0, false
	}
	return Range{}, 0, false
}

// third returns the part-th third (0, 1, 2) of r, in whole days, when r is
// closed and at least a week long.
func third(r Range, part int) (Range, bool) {
	if r.Start.IsZero() || r.End.IsZero() {
		return Range{}, false
	}
	days := int(r.End.Sub(r.Start).Hours()/24 + 0.5)
	if days < 7 {
		return Range{}, false
	}
	return Range{Start: r.Start.AddDate(0, 0, days*part/3), End: r.Start.AddDate(0, 0, days*(part+1)/3)}, true
}

// weekendOrBeforeLast matches, at i:
//   - "the weekend" (over, on or at the weekend): the latest weekend that
//     has begun, today included;
//   - "the past weekend", "the previous weekend", "the last weekend": the
//     weekend of last week, as "last weekend";
//   - "the week before last" (month, year): two units back, and "the
//     weekend before last": two weekends back.
func (p *timeParser) weekendOrBeforeLast(i int) (Range, int, bool) {
	today := p.today()
	k := i
	if p.low(k) == "the" {
		k++
	}
	w := p.low(k)
	if u := units[w]; (u != "" && !strings.HasSuffix(w, "s") || isWeekend(w)) && p.low(k+1) == "before" && p.low(k+2) == "last" {
		if isWeekend(w) {
			return weekend(today, -2), k - i + 3, true
		}
		return unitRange(u, addUnits(unitStart(u, today), u, -2)), k - i + 3, true
	}
	if k == i {
		return Range{}, 0, false // a bare "weekend" is a word, not a time
	}
	if isWeekend(w) {
		if r := weekend(today, 0); !r.Start.After(today) {
			return r, 2, true
		}
		return weekend(today, -1), 2, true
	}
	if (w == "past" || w == "previous" || w == "last") && isWeekend(p.low(k+1)) {
		return weekend(today, -1), 3, true
	}
	if w == "previous" {
		if u := units[p.low(k+1)]; u != "" && !strings.HasSuffix(p.low(k+1), "s") {
			return unitRange(u, addUnits(unitStart(u, today), u, -1)), 3, true
		}
	}
	return Range{}, 0, false
}

// holidays are the dated holidays the parser knows, by their words, each
// with its day in a given year. Thanksgiving, Mother's Day and Father's
// Day are the United States' (the fourth Thursday of November, the second
// Sunday of May, the third Sunday of June); Easter is Western (Gregorian).
var holidays = []struct {
	words []string
	day   func(y int) (time.Month, int)
}{
	{[]string{"christmas", "eve"}, fixed(time.December, 24)},
	{[]string{"christmas", "day"}, fixed(time.December, 25)},
	{[]string{"christmas"}, fixed(time.December, 25)},
	{[]string{"xmas"}, fixed(time.December, 25)},
	{[]string{"boxing", "day"}, fixed(time.December, 26)},
	{[]string{"new", "year's", "eve"}, fixed(time.December, 31)},
	{[]string{"new", "year's", "day"}, fixed(time.January, 1)},
	{[]string{"new", "years", "eve"}, fixed(time.December, 31)},
	{[]string{"new", "year's"}, fixed(time.January, 1)},
	{[]string{"valentine's", "day"}, fixed(time.February, 14)},
	{[]string{"valentines", "day"}, fixed(time.February, 14)},
	{[]string{"halloween"}, fixed(time.October, 31)},
	{[]string{"independence", "day"}, fixed(time.July, 4)},
	{[]string{"fourth", "of", "july"}, fixed(time.July, 4)},
	{[]string{"thanksgiving"}, nthWeekday(time.November, time.Thursday, 4)},
	{[]string{"mother's", "day"}, nthWeekday(time.May, time.Sunday, 2)},
	{[]string{"mothers", "day"}, nthWeekday(time.May, time.Sunday, 2)},
	{[]string{"father's", "day"}, nthWeekday(time.June, time.Sunday, 3)},
	{[]string{"fathers", "day"}, nthWeekday(time.June, time.Sunday, 3)},
	{[]string{"easter", "sunday"}, easter},
	{[]string{"easter"}, easter},
}

func fixed(m time.Month, d int) func(int) (time.Month, int) {
	return func(int) (time.Month, int) { return m, d }
}

// nthWeekday is the n-th weekday wd of month m.
func nthWeekday(m time.Month, wd time.Weekday, n int) func(int) (time.Month, int) {
	return func(y int) (time.Month, int) {
		first := time.Date(y, m, 1, 0, 0, 0, 0, time.UTC).Weekday()
		return m, 1 + (int(wd)-int(first)+7)%7 + 7*(n-1)
	}
}

// easter is Western Easter Sunday of year y (the anonymous Gregorian
// algorithm, as Meeus gives it).
func easter(y int) (time.Month, int) {
	a, b, c := y%19, y/100, y%100
	d, e := b/4, b%4
	f := (b + 8) / 25
	g := (b - f + 1) / 3
	h := (19*a + b - d - g + 15) % 30
	i, k := c/4, c%4
	l := (32 + 2*e + 2*i - h - k) % 7
	m := (a + 11*h + 22*l) / 451
	return time.Month((h + l - 7*m + 114) / 31), (h+l-7*m+114)%31 + 1
}

// holiday reads a holiday's words at i ("Christmas Eve", "New Year's Day",
// "Valentine's Day", "Thanksgiving", "the Fourth of July"): its day
// function and the tokens used.
func (p *timeParser) holiday(i int) (func(int) (time.Month, int), int) {
	lead := 0
	if p.low(i) == "the" {
		lead = 1
	}
	for _, h := range holidays {
		if p.words(i+lead, h.words) {
			return h.day, lead + len(h.words)
		}
	}
	return nil, 0
}

func (p *timeParser) isHoliday(i int) bool {
	day, _ := p.holiday(i)
	return day != nil
}

// holidayAt matches a holiday at i, with a year after it ("Christmas
// 2022", "Easter of 2023") or relative as rel says: -1 the latest that has
// ended (last Christmas), 0 this year's, 1 the first that has not begun,
// 2 the latest that has begun, today included (a bare "Christmas").
func (p *timeParser) holidayAt(i, rel int) (Range, int, bool) {
	day, n := p.holiday(i)
	if day == nil {
		return Range{}, 0, false
	}
	today := p.today()
	loc := today.Location()
	at := func(y int) time.Time {
		m, d := day(y)
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	}
	j := i + n
	if p.low(j) == "of" && p.isYear(j+1) {
		j++
	}
	if y, m := p.year(j); m > 0 && rel == 2 {
		return unitRange("day", at(y)), j + m - i, true
	}
	y := today.Year()
	switch rel {
	case -1:
		if !at(y).Before(today) {
			y--
		}
	case 1:
		if !at(y).After(today) {
			y++
		}
	case 2:
		if at(y).After(today) {
			y--
		}
	}
	return unitRange("day", at(y)), n, true
}
