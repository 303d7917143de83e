package dynamodb

import (
	"strconv"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The visibility attributes of memory items and postings: the audience key
// (memory.Memory.Audience) and the world. Each is written only when not
// empty, so that items written before visibilities existed, which have
// neither, read as shared or agent memories, as they did.
const (
	attrAudience = "aud"
	attrWorld    = "worldId"
)

const (
	// maxInOperands is the most operands DynamoDB's IN takes.
	maxInOperands = 100
	// maxFilterBytes bounds the filter expressions this package renders,
	// under DynamoDB's 4 KB for any expression with room for what a
	// caller appends. A reader's audience set is bounded (a user's rooms
	// and worlds, memory.MaxActingRooms each), but with a large metadata
	// filter beside it the expression could pass the limit: then the
	// audience clause is left out of it and checked on the items read
	// (keepAudiences, gens.current), which every read does anyway.
	maxFilterBytes = 3800
)

// setVisibility writes a's world and audience into the item it, when set.
func setVisibility(it map[string]types.AttributeValue, worldID, audience string) {
	if worldID != "" {
		it[attrWorld] = str(worldID)
	}
	if audience != "" {
		it[attrAudience] = str(audience)
	}
}

// audienceClause renders a reader's audience set (Filter.Audiences, not
// nil) as a condition on the attribute named name, with val naming each
// value: an item without an audience passes, one with an audience passes
// when it is in the set, in IN lists of up to maxInOperands joined by OR.
// The empty set passes items without an audience only.
func audienceClause(auds []string, name string, val func(string) string) string {
	parts := []string{"attribute_not_exists(" + name + ")"}
	for start := 0; start < len(auds); start += maxInOperands {
		chunk := auds[start:min(len(auds), start+maxInOperands)]
		ph := make([]string, len(chunk))
		for i, a := range chunk {
			ph[i] = val(a)
		}
		parts = append(parts, name+" IN ("+strings.Join(ph, ", ")+")")
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}

// withAudience appends f's audience clause to the filter expression base
// when f restricts audiences and the result stays within maxFilterBytes,
// adding its names and values; otherwise it returns base unchanged and
// the caller's check on the items read (keepAudiences) applies the clause.
// prefix makes the clause's placeholders distinct from base's.
func withAudience(f memory.Filter, base, prefix string, names map[string]string, values map[string]types.AttributeValue) string {
	if f.Audiences == nil {
		return base
	}
	vals := map[string]types.AttributeValue{}
	name := "#" + prefix
	clause := audienceClause(f.Audiences, name, func(v string) string {
		k := ":" + prefix + strconv.Itoa(len(vals))
		vals[k] = str(v)
		return k
	})
	out := clause
	if base != "" {
		out = base + " AND " + clause
	}
	if len(out) > maxFilterBytes {
		return base
	}
	names[name] = attrAudience
	for k, v := range vals {
		values[k] = v
	}
	return out
}

// keepAudiences keeps the items whose audience f sees (the clause of
// withAudience, checked again on the way out).
func keepAudiences(f memory.Filter, its []map[string]types.AttributeValue) []map[string]types.AttributeValue {
	if f.Audiences == nil {
		return its
	}
	out := its[:0:0]
	for _, it := range its {
		if f.SeesAudience(attrS(it, attrAudience)) {
			out = append(out, it)
		}
	}
	return out
}
