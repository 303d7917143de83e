package dynamodb

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestAudienceClause checks how a reader's audiences are pushed down: in
// IN lists of at most 100 operands, the largest set a reader can have
// (memory.MaxActingRooms rooms and worlds) within DynamoDB's 4 KB, and,
// beside the largest metadata filter, left to the check on the items read
// rather than past the limit. The contract suites check what the reads
// return; this checks that the expressions do the work.
func TestAudienceClause(t *testing.T) {
	most := memory.Acting{UserID: "u", RoomID: "r", WorldID: "w"}
	for i := range memory.MaxActingRooms {
		most.Rooms = append(most.Rooms, fmt.Sprintf("room-%03d", i))
		most.Worlds = append(most.Worlds, fmt.Sprintf("world-%03d", i))
	}
	meta := memory.MetadataFilter{}
	for k := range memory.MaxMetadataKeys {
		for v := range memory.MaxMetadataPairs / memory.MaxMetadataKeys {
			key := fmt.Sprintf("key%d", k)
			meta[key] = append(meta[key], fmt.Sprintf("value%d", v))
		}
	}
	tests := []struct {
		name      string
		f         memory.Filter
		inLists   int  // IN lists of the audience clause
		pushed    bool // whether the clause is in the expression
		emptyOnly bool // the empty set: items without an audience only
	}{
		{"admin view", memory.Filter{}, 0, false, false},
		{"a room and a user", memory.Filter{Audiences: []string{"room:a", "user:u"}}, 1, true, false},
		{"the empty set", memory.Filter{Audiences: []string{}}, 0, true, true},
		{"the most rooms", memory.Filter{Audiences: most.Audiences(), WorldID: "w", Types: []memory.Type{memory.TypeFact, memory.TypeMessage}}, 5, true, false},
		{"the most rooms and metadata", memory.Filter{Audiences: most.Audiences(), Metadata: meta}, 0, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.OrgID = "o"
			store := plan(tc.f)
			terms := filterExpr(tc.f, map[string]string{}, map[string]types.AttributeValue{})
			for _, c := range []struct {
				what, expr string
				names      map[string]string
			}{{"store", store.filter, store.names}, {"term index", terms, nil}} {
				if len(c.expr) > 4096 {
					t.Fatalf("%s: an expression of %d bytes", c.what, len(c.expr))
				}
				pushed := strings.Contains(c.expr, "attribute_not_exists(#aud)")
				if c.what == "term index" && tc.name == "the most rooms and metadata" {
					// Term indexes do not apply metadata: the clause fits.
					if !pushed {
						t.Fatalf("%s: the clause was left out of %q", c.what, c.expr)
					}
					continue
				}
				if pushed != tc.pushed {
					t.Fatalf("%s: pushed down %v, want %v: %s", c.what, pushed, tc.pushed, c.expr)
				}
				if n := strings.Count(c.expr, "#aud IN ("); n != tc.inLists {
					t.Fatalf("%s: %d IN lists, want %d", c.what, n, tc.inLists)
				}
				for _, list := range strings.Split(c.expr, "#aud IN (")[1:] {
					if n := strings.Count(list[:strings.Index(list, ")")], ",") + 1; n > maxInOperands {
						t.Fatalf("%s: an IN list of %d operands", c.what, n)
					}
				}
				if c.names != nil && pushed && c.names["#aud"] != attrAudience {
					t.Fatalf("%s: #aud names %q", c.what, c.names["#aud"])
				}
				if tc.emptyOnly && !strings.HasSuffix(c.expr, "AND attribute_not_exists(#aud)") {
					t.Fatalf("%s: the empty set rendered as %q", c.what, c.expr)
				}
			}
		})
	}
}
