package client

import (
	"net/url"
	"testing"
)

// TestFilterValues holds the query parameters of List, Count and
// DeleteWhere to the names the server's query decoder reads.
func TestFilterValues(t *testing.T) {
	tests := []struct {
		name string
		f    Filter
		want url.Values
	}{
		{"empty", Filter{}, url.Values{}},
		{"lists and times", Filter{Type: []string{"fact", "message"}, Start: 5, IncludeArchived: true},
			url.Values{"type": {"fact,message"}, "start": {"5"}, "includeArchived": {"true"}}},
		{"whom the read serves", Filter{RoomID: "r1", WorldID: "w1", UserID: "u1"},
			url.Values{"roomId": {"r1"}, "worldId": {"w1"}, "userId": {"u1"}}},
		{"session key and metadata", Filter{SessionKey: "s1", Metadata: map[string][]string{"lang": {"en", "fr"}, "src": {"a,b"}}},
			url.Values{"sessionKey": {"s1"}, "metadata.lang": {"en", "fr"}, "metadata.src": {"a,b"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f.values(); got.Encode() != tc.want.Encode() {
				t.Errorf("values() = %s, want %s", got.Encode(), tc.want.Encode())
			}
		})
	}
}
