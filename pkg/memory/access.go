package memory

// CountAccesses is Store.Touch's rule for its ids: an id listed n times is
// n accesses. It returns each id once, in the order first listed, and its
// count.
func CountAccesses(ids []string) (distinct []string, counts map[string]int64) {
	counts = make(map[string]int64, len(ids))
	for _, id := range ids {
		if counts[id] == 0 {
			distinct = append(distinct, id)
		}
		counts[id]++
	}
	return distinct, counts
}
