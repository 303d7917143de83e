package knowledge

import (
	"context"
	"fmt"
	"slices"

	"github.com/agentmem/agentmem/pkg/memory"
)

// entityNames is the org's entity names when the service resolves them
// (Entities set), else nil (which resolves nothing). A failure to read
// them fails the extraction, to be retried: knowledge written without
// them would keep unresolved names until the memory changes.
func (k *Service) entityNames(ctx context.Context, orgID string) (*memory.EntityNames, error) {
	if k.Entities == nil {
		return nil, nil
	}
	n, err := k.Entities.EntityNames(ctx, orgID)
	if err != nil {
		return nil, fmt.Errorf("entity names: %w", err)
	}
	return n, nil
}

// resolveSpeakers returns srcs as the extractor reads them: each speaker
// and listener that names a registered entity (its id, as a message's
// entityId usually is, or a name or alias) given as the entity's display
// name, so that what the extractor says of the speaker ("I am allergic")
// is said of the one entity however the message named it. srcs itself is
// left as it was (the stale-extraction guard compares it with the stored
// memory).
func resolveSpeakers(names *memory.EntityNames, ms []*memory.Memory, srcs []memory.KnowledgeSource) []memory.KnowledgeSource {
	if names.Len() == 0 {
		return srcs
	}
	out := slices.Clone(srcs)
	for i := range out {
		agent := ms[i].AgentID
		if e := names.Resolve(out[i].Speaker, agent); e != nil {
			out[i].Speaker = e.DisplayName()
		}
		if len(out[i].Listeners) > 0 {
			ls := slices.Clone(out[i].Listeners)
			for j, l := range ls {
				if e := names.Resolve(l, agent); e != nil {
					ls[j] = e.DisplayName()
				}
			}
			out[i].Listeners = ls
		}
	}
	return out
}

// resolveMentions returns kn with every entity that names a registered
// entity (for a memory of agentID) given as that entity: its id and its
// display name, and the actions' subjects and objects that name one given
// by its display name. "Bob", "bob" and the alias "Robert" are then one
// entity of the knowledge lists, with one id.
func resolveMentions(names *memory.EntityNames, agentID string, kn memory.Knowledge) memory.Knowledge {
	if names.Len() == 0 {
		return kn
	}
	name := func(s string) string {
		if e := names.Resolve(s, agentID); e != nil {
			return e.DisplayName()
		}
		return s
	}
	kn.Entities = slices.Clone(kn.Entities)
	for i, e := range kn.Entities {
		if p := names.Resolve(e.Name, agentID); p != nil {
			kn.Entities[i].ID, kn.Entities[i].Name = p.ID, p.DisplayName()
		}
	}
	kn.Actions = slices.Clone(kn.Actions)
	for i := range kn.Actions {
		a := &kn.Actions[i]
		a.Subject, a.Object, a.IndirectObject = name(a.Subject), name(a.Object), name(a.IndirectObject)
	}
	return kn
}
