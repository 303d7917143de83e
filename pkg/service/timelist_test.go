package service_test

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/retrieval"
	"github.com/agentmem/agentmem/pkg/service"
)

// TestTimeList: a question that names a time ranks the memories of that
// time (and of the month after, which may tell of it) in the time list,
// resolved against the newest memory rather than the wall clock, and a
// question that names no time, or a span too wide to narrow, gets none.
func TestTimeList(t *testing.T) {
	b := open(t)
	org := memory.Caller{OrgID: "acme"}
	at := func(m time.Month, d int) int64 { return time.Date(2023, m, d, 12, 0, 0, 0, time.UTC).UnixMilli() }
	res, err := b.Service.Create(ctx, org, []service.NewMemory{
		{Type: memory.TypeMessage, RoomID: "s1", Content: memory.Content{Text: "We went camping by the lake, the kids loved it"}, CreatedAt: at(3, 10)},
		{Type: memory.TypeMessage, RoomID: "s2", Content: memory.Content{Text: "Camping again with the family, two weekends ago"}, CreatedAt: at(7, 3)},
		{Type: memory.TypeMessage, RoomID: "s3", Content: memory.Content{Text: "I painted the sunset over the lake"}, CreatedAt: at(10, 13)},
	})
	if err != nil {
		t.Fatal(err)
	}
	march, july, october := res[0].ID, res[1].ID, res[2].ID
	tests := []struct {
		query string
		want  []string
	}{
		{"When did they go camping in June?", []string{july}},      // June, or told of in the month after
		{"When did they go camping in March?", []string{march}},    // March 2023: the newest memory is of 2023
		{"What did she paint on October 13?", []string{october}},   // a day
		{"When did they go camping?", nil},                         // no time named
		{"Where did they go camping in 2023?", nil},                // a year does not narrow
		{"What did they do before May 2023?", nil},                 // an open range does not either
		{"What did they do last month?", []string{october}},        // September, resolved against 13 October 2023
		{"When did they go camping in December 2023?", []string{}}, // nothing then
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			out, err := b.Service.Search(ctx, org, service.SearchRequest{Query: tc.query, Lists: []string{retrieval.ListTime}, K: 5})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range out {
				got = append(got, r.Memory.ID)
			}
			if len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
				t.Fatalf("time list %v, want %v", got, tc.want)
			}
		})
	}
}
