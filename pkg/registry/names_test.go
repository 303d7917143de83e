package registry_test

import (
	"testing"
	"time"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/registry"
)

// TestEntityNames resolves names and aliases through the registry, per
// org, with the changes made through it seen at once and those made
// elsewhere within NamesTTL.
func TestEntityNames(t *testing.T) {
	each(t, func(t *testing.T, r *registry.Registry, rs memory.RecordStore) {
		now := time.Unix(1_800_000_000, 0)
		registry.SetNow(r, func() time.Time { return now })
		if _, err := r.CreateEntity(ctx, orgA, registry.NewEntity{ID: "u-bob", Names: []string{"Bob", "Robert"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.CreateEntity(ctx, orgB, registry.NewEntity{ID: "b-alice", Names: []string{"Alice"}}); err != nil {
			t.Fatal(err)
		}
		resolve := func(org, name string) string {
			t.Helper()
			n, err := r.EntityNames(ctx, org)
			if err != nil {
				t.Fatal(err)
			}
			if e := n.Resolve(name, ""); e != nil {
				return e.ID
			}
			return ""
		}
		for _, tc := range []struct{ org, name, want string }{
			{orgA.OrgID, "bob", "u-bob"},
			{orgA.OrgID, "Robert", "u-bob"},
			{orgA.OrgID, "u-bob", "u-bob"},
			{orgA.OrgID, "Alice", ""}, // org B's
			{orgB.OrgID, "alice", "b-alice"},
			{orgB.OrgID, "Bob", ""},
		} {
			if got := resolve(tc.org, tc.name); got != tc.want {
				t.Errorf("%s: %q resolves to %q, want %q", tc.org, tc.name, got, tc.want)
			}
		}
		// A change through this registry is seen at once.
		names := []string{"Bob", "Robert", "Bobby"}
		if _, err := r.UpdateEntity(ctx, orgA, "u-bob", registry.EntityPatch{Names: &names}, 0); err != nil {
			t.Fatal(err)
		}
		if got := resolve(orgA.OrgID, "Bobby"); got != "u-bob" {
			t.Fatalf("a new alias resolves to %q", got)
		}
		// One made elsewhere (another process) within NamesTTL.
		other := registry.New(rs)
		if _, err := other.CreateEntity(ctx, orgA, registry.NewEntity{ID: "u-kim", Names: []string{"Kim"}}); err != nil {
			t.Fatal(err)
		}
		if got := resolve(orgA.OrgID, "Kim"); got != "" {
			t.Fatalf("cached names changed before the TTL: %q", got)
		}
		now = now.Add(registry.NamesTTL)
		if got := resolve(orgA.OrgID, "Kim"); got != "u-kim" {
			t.Fatalf("after the TTL, Kim resolves to %q", got)
		}
	})
}
