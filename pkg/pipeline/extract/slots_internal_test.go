package extract

import (
	"slices"
	"sort"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestFamiliesAreTheFactCategories: the slot families of slots.go and the
// categories an org's settings may name (memory.FactCategories) are one
// list, so that every category a setting names can match a fact and every
// fact has a category a setting can name.
func TestFamiliesAreTheFactCategories(t *testing.T) {
	var fams []string
	for f := range families {
		fams = append(fams, f)
	}
	cats := slices.DeleteFunc(slices.Clone(memory.FactCategories), func(c string) bool { return c == memory.CategoryOther })
	sort.Strings(fams)
	sort.Strings(cats)
	if !slices.Equal(fams, cats) {
		t.Fatalf("slot families %v, fact categories %v", fams, cats)
	}
}
