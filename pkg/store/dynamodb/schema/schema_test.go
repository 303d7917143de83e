package schema

import "testing"

// TestNamesAreUnique: index names and key attributes are each declared
// once; a copy-pasted index would make CreateTable and the CDK app fail
// late, on a real table.
func TestNamesAreUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, a := range Attributes() {
		if a == "" || seen[a] {
			t.Errorf("attribute %q empty or declared twice", a)
		}
		seen[a] = true
	}
	names := map[string]bool{}
	for _, ix := range Indexes {
		if ix.Name == "" || names[ix.Name] {
			t.Errorf("index %q empty or declared twice", ix.Name)
		}
		names[ix.Name] = true
	}
	if seen[TTLAttribute] {
		t.Errorf("the TTL attribute %q is also a key attribute", TTLAttribute)
	}
}
