package query

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
)

// now is a Wednesday afternoon.
var now = time.Date(2024, time.March, 13, 15, 4, 5, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

func TestResolveTime(t *testing.T) {
	days := func(y int, m time.Month, d, n int) Range { return Range{day(y, m, d), day(y, m, d+n)} }
	open := time.Time{}
	tests := []struct {
		expr string
		want Range
	}{
		{"yesterday", days(2024, 3, 12, 1)},
		{"today", days(2024, 3, 13, 1)},
		{"Tonight", days(2024, 3, 13, 1)},
		{"tomorrow", days(2024, 3, 14, 1)},
		{"last night", days(2024, 3, 12, 1)},
		{"this morning", days(2024, 3, 13, 1)},
		{"the day before yesterday", days(2024, 3, 11, 1)},
		{"earlier today", Range{day(2024, 3, 13), now}},
		{"last week", days(2024, 3, 4, 7)},
		{"this week", days(2024, 3, 11, 7)},
		{"next week", days(2024, 3, 18, 7)},
		{"last month", Range{day(2024, 2, 1), day(2024, 3, 1)}},
		{"this month", Range{day(2024, 3, 1), day(2024, 4, 1)}},
		{"next month", Range{day(2024, 4, 1), day(2024, 5, 1)}},
		{"last year", Range{day(2023, 1, 1), day(2024, 1, 1)}},
		{"this year", Range{day(2024, 1, 1), day(2025, 1, 1)}},
		{"last weekend", days(2024, 3, 9, 2)},
		{"this weekend", days(2024, 3, 16, 2)},
		{"earlier this week", Range{day(2024, 3, 11), now}},
		{"the past week", Range{now.AddDate(0, 0, -7), now}},
		{"past month", Range{now.AddDate(0, -1, 0), now}},
		{"the last 3 days", Range{now.AddDate(0, 0, -3), now}},
		{"in the past two months", Range{now.AddDate(0, -2, 0), now}},
		{"over the past few weeks", Range{now.AddDate(0, 0, -35), now}},
		{"3 days ago", days(2024, 3, 10, 1)},
		{"two weeks ago", days(2024, 2, 26, 7)},
		{"a month ago", Range{day(2024, 2, 1), day(2024, 3, 1)}},
		{"a couple of days ago", Range{day(2024, 3, 10), day(2024, 3, 12)}},
		{"a few years ago", Range{day(2019, 1, 1), day(2023, 1, 1)}},
		{"in May 2023", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"May 2023", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"May of 2023", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"in 2022", Range{day(2022, 1, 1), day(2023, 1, 1)}},
		{"on 8 May 2023", days(2023, 5, 8, 1)},
		{"8 May", days(2023, 5, 8, 1)},
		{"May 8th", days(2023, 5, 8, 1)},
		{"May 8, 2023", days(2023, 5, 8, 1)},
		{"the 8th of May 2023", days(2023, 5, 8, 1)},
		{"on the 1st of March", days(2024, 3, 1, 1)},
		{"2023-05-08", days(2023, 5, 8, 1)},
		{"2023-05", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"in May", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"in March", Range{day(2024, 3, 1), day(2024, 4, 1)}},
		{"last May", Range{day(2023, 5, 1), day(2023, 6, 1)}},
		{"last March", Range{day(2023, 3, 1), day(2023, 4, 1)}},
		{"this May", Range{day(2024, 5, 1), day(2024, 6, 1)}},
		{"next May", Range{day(2024, 5, 1), day(2024, 6, 1)}},
		{"in the summer of 2023", Range{day(2023, 6, 1), day(2023, 9, 1)}},
		{"summer 2023", Range{day(2023, 6, 1), day(2023, 9, 1)}},
		{"the winter of 2023", Range{day(2023, 12, 1), day(2024, 3, 1)}},
		{"last summer", Range{day(2023, 6, 1), day(2023, 9, 1)}},
		{"last winter", Range{day(2023, 12, 1), day(2024, 3, 1)}},
		{"in the summer", Range{day(2023, 6, 1), day(2023, 9, 1)}},
		{"next summer", Range{day(2024, 6, 1), day(2024, 9, 1)}},
		{"on Monday", days(2024, 3, 11, 1)},
		{"last Monday", days(2024, 3, 11, 1)},
		{"last Wednesday", days(2024, 3, 6, 1)},
		{"this Friday", days(2024, 3, 15, 1)},
		{"next Friday", days(2024, 3, 15, 1)},
		{"before May 2023", Range{open, day(2023, 5, 1)}},
		{"after 8 May 2023", Range{day(2023, 5, 9), open}},
		{"since 2022", Range{day(2022, 1, 1), open}},
		{"until last week", Range{open, day(2024, 3, 11)}},
		{"by the end of 2023", Range{open, day(2024, 1, 1)}},
		{"between March 2023 and May 2023", Range{day(2023, 3, 1), day(2023, 6, 1)}},
		{"from 2020 to 2022", Range{day(2020, 1, 1), day(2023, 1, 1)}},
		{"from June", Range{day(2023, 6, 1), open}},
		{"yesterday.", days(2024, 3, 12, 1)},
		// a part of the day keeps the day
		{"yesterday morning", days(2024, 3, 12, 1)},
		{"last evening", days(2024, 3, 12, 1)},
		{"tomorrow night", days(2024, 3, 14, 1)},
		{"last Saturday night", days(2024, 3, 9, 1)},
		{"on Friday night", days(2024, 3, 8, 1)},
		{"Saturday morning", days(2024, 3, 9, 1)},
		{"last Thursday evening", days(2024, 3, 7, 1)},
		// vague and rolling days
		{"the other day", Range{day(2024, 3, 6), day(2024, 3, 13)}},
		{"later today", Range{now, day(2024, 3, 14)}},
		{"later this month", Range{now, day(2024, 4, 1)}},
		// weekends
		{"over the weekend", days(2024, 3, 9, 2)},
		{"on the weekend", days(2024, 3, 9, 2)},
		{"at the weekend", days(2024, 3, 9, 2)},
		{"the past weekend", days(2024, 3, 9, 2)},
		{"the previous weekend", days(2024, 3, 9, 2)},
		{"last wknd", days(2024, 3, 9, 2)},
		{"the weekend before last", days(2024, 3, 2, 2)},
		// before last, previous
		{"the week before last", days(2024, 2, 26, 7)},
		{"the month before last", Range{day(2024, 1, 1), day(2024, 2, 1)}},
		{"the previous week", days(2024, 3, 4, 7)},
		// back, fortnight, ahead
		{"a few days back", Range{day(2024, 3, 8), day(2024, 3, 12)}},
		{"2 days back", days(2024, 3, 11, 1)},
		{"a month back", Range{day(2024, 2, 1), day(2024, 3, 1)}},
		{"a fortnight ago", days(2024, 2, 26, 7)},
		{"the past fortnight", Range{now.AddDate(0, 0, -14), now}},
		{"in 3 days", days(2024, 3, 16, 1)},
		{"in two weeks", days(2024, 3, 25, 7)},
		{"in a few weeks", Range{day(2024, 3, 25), day(2024, 4, 22)}},
		{"in a month", Range{day(2024, 4, 1), day(2024, 5, 1)}},
		{"in a fortnight", days(2024, 3, 25, 7)},
		{"a week from now", days(2024, 3, 18, 7)},
		{"two days from today", days(2024, 3, 15, 1)},
		// thirds of a span of a week or more
		{"early June", Range{day(2023, 6, 1), day(2023, 6, 11)}},
		{"mid-May", Range{day(2023, 5, 11), day(2023, 5, 21)}},
		{"mid-2022", Range{day(2022, 5, 2), day(2022, 9, 1)}},
		{"late 2022", Range{day(2022, 9, 1), day(2023, 1, 1)}},
		{"the end of May", Range{day(2023, 5, 21), day(2023, 6, 1)}},
		{"at the end of last month", Range{day(2024, 2, 20), day(2024, 3, 1)}},
		{"the beginning of the month", Range{day(2024, 3, 1), day(2024, 3, 11)}},
		{"early last month", Range{day(2024, 2, 1), day(2024, 2, 10)}},
		{"the middle of next week", days(2024, 3, 20, 2)},
		{"late last summer", Range{day(2023, 8, 1), day(2023, 9, 1)}},
		// holidays: bare, the latest begun; last, the latest ended; this,
		// this year's; next, the first ahead; or of a year
		{"on Christmas", days(2023, 12, 25, 1)},
		{"last Christmas", days(2023, 12, 25, 1)},
		{"this Christmas", days(2024, 12, 25, 1)},
		{"next Christmas", days(2024, 12, 25, 1)},
		{"Christmas 2022", days(2022, 12, 25, 1)},
		{"Christmas Eve", days(2023, 12, 24, 1)},
		{"xmas", days(2023, 12, 25, 1)},
		{"New Year's Eve", days(2023, 12, 31, 1)},
		{"New Year's Day", days(2024, 1, 1, 1)},
		{"on New Year's", days(2024, 1, 1, 1)},
		{"Valentine's Day", days(2024, 2, 14, 1)},
		{"last Halloween", days(2023, 10, 31, 1)},
		{"Thanksgiving", days(2023, 11, 23, 1)},
		{"Thanksgiving 2024", days(2024, 11, 28, 1)},
		{"Easter", days(2023, 4, 9, 1)},
		{"next Easter", days(2024, 3, 31, 1)},
		{"Easter of 2000", days(2000, 4, 23, 1)},
		{"Mother's Day", days(2023, 5, 14, 1)},
		{"mothers day", days(2023, 5, 14, 1)},
		{"at Thanksgiving", days(2023, 11, 23, 1)},
		{"Father's Day 2023", days(2023, 6, 18, 1)},
		{"the Fourth of July", days(2023, 7, 4, 1)},
	}
	for _, tt := range tests {
		got, err := ResolveTime(tt.expr, now)
		if err != nil || !got.Start.Equal(tt.want.Start) || !got.End.Equal(tt.want.End) {
			t.Errorf("%q: got [%v, %v) %v, want [%v, %v)", tt.expr, got.Start, got.End, err, tt.want.Start, tt.want.End)
		}
	}
}

func TestResolveTimeRejects(t *testing.T) {
	for _, expr := range []string{"", "when pigs fly", "last", "in the", "31 June 2023", "the 30th of February",
		"yesterday and today", "between May and", "before the trip", "2023-13-01", "3 ago", "ago",
		"the following week", "early yesterday", "mid-week", "the end of", "in 3", "the weekend before",
		"ages ago", "late", "weekend", "early early June", "the end of the end of May", "mid-mid-May", "the the Christmas",
		"new year", "at May", "at 2022"} {
		if r, err := ResolveTime(expr, now); memory.ErrorCode(err) != memory.EINVALID {
			t.Errorf("%q: got [%v, %v) %v, want EINVALID", expr, r.Start, r.End, err)
		}
	}
}

func TestResolveTimeInLocation(t *testing.T) {
	ny := time.FixedZone("UTC-5", -5*3600)
	local := time.Date(2024, time.March, 13, 1, 0, 0, 0, ny) // 06:00 UTC
	r, err := ResolveTime("yesterday", local)
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, time.March, 12, 0, 0, 0, 0, ny); !r.Start.Equal(want) || !r.End.Equal(want.AddDate(0, 0, 1)) {
		t.Fatalf("yesterday in UTC-5: [%v, %v)", r.Start, r.End)
	}
}

func TestLatestFebruary29(t *testing.T) {
	r, err := ResolveTime("29 February", now)
	if err != nil || !r.Start.Equal(day(2024, 2, 29)) {
		t.Fatalf("got %v %v", r.Start, err)
	}
	r, err = ResolveTime("29 February", day(2025, 6, 1))
	if err != nil || !r.Start.Equal(day(2024, 2, 29)) {
		t.Fatalf("from 2025: got %v %v", r.Start, err)
	}
}

func TestFindTime(t *testing.T) {
	now := time.Date(2023, 10, 20, 15, 0, 0, 0, time.UTC)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		text       string
		start, end time.Time
		ok         bool
	}{
		{"When did Melanie go camping in June?", day(2023, 6, 1), day(2023, 7, 1), true},
		{"What painting did Melanie show on October 13, 2023?", day(2023, 10, 13), day(2023, 10, 14), true},
		{"What setback did she face in October 2023?", day(2023, 10, 1), day(2023, 11, 1), true},
		{"What did Ana do last week?", day(2023, 10, 9), day(2023, 10, 16), true},
		{"What did Ana cook yesterday", day(2023, 10, 19), day(2023, 10, 20), true},
		{"May I ask what Ana likes?", time.Time{}, time.Time{}, false},
		{"What sports has Ana tried?", time.Time{}, time.Time{}, false},
		// short weekday names after last/this/next; "this past"; weekends ago
		{"Last Fri I took my kids to a pottery workshop", day(2023, 10, 13), day(2023, 10, 14), true},
		{"I joined an activist group last Tues.", day(2023, 10, 17), day(2023, 10, 18), true},
		{"that roadtrip this past weekend was insane", day(2023, 10, 14), day(2023, 10, 16), true},
		{"we went camping two weekends ago", day(2023, 10, 7), day(2023, 10, 9), true},
		{"I sat in the sun on the sat phone", time.Time{}, time.Time{}, false},
		// new in the grammar: weekends, parts of days, back, holidays
		{"We went hiking over the weekend!", day(2023, 10, 14), day(2023, 10, 16), true},
		{"I saw someone drawing on the ground the other day", day(2023, 10, 13), day(2023, 10, 20), true},
		{"Got back from the lake a few days back", day(2023, 10, 15), day(2023, 10, 19), true},
		{"Our Halloween party was a blast", day(2022, 10, 31), day(2022, 11, 1), true},
		{"I woke up early and went for a run", time.Time{}, time.Time{}, false},
		{"I was late last night", day(2023, 10, 19), day(2023, 10, 20), true},
		// "at" dates weekends, holidays and parts of a span, not names
		{"look at june's new car!", time.Time{}, time.Time{}, false},
		{"Did you see April's painting?", time.Time{}, time.Time{}, false},
		{"We met in June's heat", day(2023, 6, 1), day(2023, 7, 1), true},
		{"We met at Christmas", day(2022, 12, 25), day(2022, 12, 26), true},
		{"I'm starting a new year of school", time.Time{}, time.Time{}, false},
		{"Our New Year's Eve party was loud", day(2022, 12, 31), day(2023, 1, 1), true},
	}
	for _, tc := range tests {
		t.Run(tc.text, func(t *testing.T) {
			r, ok := FindTime(tc.text, now)
			if ok != tc.ok || !r.Start.Equal(tc.start) || !r.End.Equal(tc.end) {
				t.Fatalf("FindTime = %v..%v, %v; want %v..%v, %v", r.Start, r.End, ok, tc.start, tc.end, tc.ok)
			}
		})
	}
}

// TestEaster checks the computus against published dates of Western
// Easter, across century rules (1900, 2000) and the extremes (22 March
// 1818, 25 April 1943).
func TestEaster(t *testing.T) {
	for _, tc := range []struct {
		y int
		m time.Month
		d int
	}{{1818, time.March, 22}, {1900, time.April, 15}, {1943, time.April, 25}, {2000, time.April, 23},
		{2019, time.April, 21}, {2024, time.March, 31}, {2025, time.April, 20}, {2038, time.April, 25}} {
		if m, d := easter(tc.y); m != tc.m || d != tc.d {
			t.Errorf("Easter %d: got %v %d, want %v %d", tc.y, m, d, tc.m, tc.d)
		}
	}
}
