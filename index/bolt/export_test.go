package bolt

// SetWalkCost sets the weight of the graph's walk against the exact scan
// for a test (0: every filter that allows anything goes through the
// graph), and returns a function restoring it.
func SetWalkCost(c float64) (restore func()) {
	old := walkCost
	walkCost = c
	return func() { walkCost = old }
}

// RestoredGraphs is how many orgs' graphs Open restored from a snapshot.
func RestoredGraphs(ix *Index) int { return ix.restored }
