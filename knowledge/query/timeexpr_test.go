package query

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/memory"
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
		"yesterday and today", "between May and", "before the trip", "2023-13-01", "3 ago", "ago"} {
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
