package wiring_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentmem/agentmem/pkg/wiring"
)

// orgs is a store part that only lists orgs.
type orgs []string

func (o orgs) Orgs(context.Context) ([]string, error) { return o, nil }

func TestRequire(t *testing.T) {
	tests := []struct {
		name    string
		caps    wiring.Capabilities
		need    []wiring.Capability
		missing []string // "" when nothing is
	}{
		{"nothing needed", wiring.Capabilities{}, nil, nil},
		{"has it", wiring.Capabilities{Orgs: orgs{"acme"}}, []wiring.Capability{wiring.OrgListing}, nil},
		{"lacks one", wiring.Capabilities{Store: "flatfile", Orgs: orgs{"acme"}}, []wiring.Capability{wiring.Records, wiring.OrgListing},
			[]string{"records (memory.RecordStore)"}},
		{"lacks all", wiring.Capabilities{}, []wiring.Capability{wiring.Relations, wiring.Records, wiring.OrgListing},
			[]string{"relations (memory.RelationStore)", "records (memory.RecordStore)", "org listing (memory.OrgLister)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.caps.Require("the consumer", tc.need...)
			if len(tc.missing) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "the consumer needs a store that keeps") {
				t.Fatalf("%v does not name the consumer", err)
			}
			for _, m := range tc.missing {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%v does not name %s", err, m)
				}
			}
			if tc.caps.Store != "" && !strings.Contains(err.Error(), "the "+tc.caps.Store+" store") {
				t.Errorf("%v does not name the store", err)
			}
		})
	}
}
