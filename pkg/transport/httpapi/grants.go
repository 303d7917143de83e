package httpapi

import (
	"context"

	"github.com/agentmem/agentmem/pkg/auth"

	"github.com/agentmem/agentmem/pkg/memory"
)

// public marks a route that needs no key (the health check).
const public memory.Grants = 0

// authorize checks that c's key holds op, the operation the route table
// names for the route. It is the one grant check of the API; the service
// then applies the scope rules (an agent-bound key sees its agent's and
// the org's memories, and writes its own).
func authorize(c memory.Caller, op memory.Grants) error {
	if c.Grants.Has(op) {
		return nil
	}
	return memory.Errorf(memory.EFORBIDDEN, "this key is not granted %s (it holds: %s)", grantList(op), grantList(c.Grants))
}

func grantList(g memory.Grants) string {
	if g == 0 {
		return "nothing"
	}
	return g.String()
}

// orgDeleter reports whether c may delete org-scope memories and run
// bulk deletes: an org-level key with delete, or any key with delete:org.
func orgDeleter(c memory.Caller) bool {
	return c.AgentID == "" && c.Grants.Has(memory.GrantDelete) || c.Grants.Has(memory.GrantDeleteOrg)
}

// orgLevel is c acting at org level for a delete it is entitled to by
// delete:org.
func orgLevel(c memory.Caller) memory.Caller {
	return memory.Caller{OrgID: c.OrgID, Grants: c.Grants}
}

// deleteWhere is the bulk delete. An org-level key deletes across the
// org. An agent-bound key deletes within its own scope; the org scope
// (agentId=_org) needs delete:org; another agent's scope, never.
func (s *Server) deleteWhere(ctx context.Context, c memory.Caller, f memory.Filter) (int, error) {
	if c.AgentID != "" && f.AgentID != "" && f.AgentID != memory.OrgScope && f.AgentID != c.AgentID {
		return 0, memory.Errorf(memory.EFORBIDDEN, "agentId: this key is bound to agent %q and cannot delete another agent's memories", c.AgentID)
	}
	if c.AgentID != "" && f.AgentID == memory.OrgScope {
		if !orgDeleter(c) {
			return 0, memory.Errorf(memory.EFORBIDDEN, "agentId: org-scope memories are shared by every agent: deleting them needs an org-level key or the delete:org grant")
		}
		return s.svc.DeleteWhere(ctx, orgLevel(c), f)
	}
	return s.svc.DeleteWhere(ctx, c, f)
}

// adminOnly is the admin endpoints' check beyond the admin grant: an
// org-level key (no agent-bound key or end-user token holds admin; this
// guards the rule).
func adminOnly(c memory.Caller) error {
	if c.AgentID != "" || !c.Grants.Has(memory.GrantAdmin) || auth.IsTokenCaller(c) {
		return memory.Errorf(memory.EFORBIDDEN, "admin endpoints need an org-level key with the admin grant")
	}
	return nil
}
