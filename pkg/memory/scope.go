package memory

// Caller is the authenticated party of a request. It comes from the API key
// or the API Gateway authorizer, never from a request body. OrgID is always
// set; AgentID set binds the caller to that one agent. Grants are the
// operations its key may perform; the API checks them per route, the
// service does not (it enforces scopes).
type Caller struct {
	OrgID   string
	AgentID string
	Grants  Grants
	// KeyID names the API key, for the history of the memories it
	// changes; empty for keys configured without an id.
	KeyID string
	// Binding is what the credentials themselves bind the caller to: an
	// end-user token's user, room or world. Requests may narrow it
	// (Acting.Narrow), never widen it. Nil for API keys.
	Binding *Acting
	// Acting is whom this request serves (a room, a world, an end user),
	// resolved by the service from the request and Binding; every read
	// bound by Bind sees only those audiences. Nil is the admin view.
	Acting *Acting
}

// OrgScope is the agentId filter value that selects org-scope memories only.
const OrgScope = "_org"

// Valid checks that the caller names an org.
func (c Caller) Valid() error {
	if c.OrgID == "" {
		return Errorf(EUNAUTHORIZED, "no org bound to the credentials")
	}
	return nil
}

// CanSee reports whether c may read a memory with these owner attributes
// (audience is Memory.Audience): it must be in c's org; an agent-bound
// caller sees org-scope memories and its own agent's only; a caller acting
// for a room or a user sees the audiences it serves only.
func (c Caller) CanSee(orgID, agentID, audience string) bool {
	if c.OrgID == "" || orgID != c.OrgID {
		return false
	}
	if c.AgentID != "" && agentID != "" && agentID != c.AgentID {
		return false
	}
	return audienceVisible(c.Acting.Audiences(), c.Acting != nil, audience)
}

// CanSeeMemory is CanSee for a loaded memory.
func (c Caller) CanSeeMemory(m *Memory) bool {
	return m != nil && c.CanSee(m.OrgID, m.AgentID, m.Audience())
}

// audienceVisible is the one audience rule: a memory without an audience
// (shared or agent) is visible to every reader its agent allows; one with
// an audience is visible to the admin view (restricted false) and to
// readers acting for that audience.
func audienceVisible(audiences []string, restricted bool, audience string) bool {
	return audience == "" || !restricted || contains(audiences, audience)
}

// CanChange checks that c may change m, a memory it can see, in place
// (update, replace, archive): an agent-bound caller changes its own
// agent's memories, and the org-scope ones, which every agent of the org
// shares, only with GrantWriteOrg. EFORBIDDEN otherwise.
func (c Caller) CanChange(m *Memory) error {
	if c.AgentID != "" && m.AgentID == "" && !c.Grants.Has(GrantWriteOrg) {
		return Errorf(EFORBIDDEN, "memory %q is in the org scope, shared by every agent: changing it needs an org-level key or the write:org grant", m.ID)
	}
	return nil
}

// WriteScope resolves the agent scope a new memory goes to. scope is the
// request's "scope" field ("", "org" or "agent") and agentID its "agentId".
//
//   - An org-level caller writes to the org scope by default, or to agentID's
//     scope when given.
//   - An agent-bound caller writes to its own agent scope by default, or to the
//     org scope with scope "org"; naming another agent is EFORBIDDEN.
func (c Caller) WriteScope(scope, agentID string) (string, error) {
	switch scope {
	case "", "org", "agent":
	default:
		return "", Errorf(EINVALID, "scope: %q is not one of org, agent", scope)
	}
	if err := ValidID("agentId", agentID); err != nil {
		return "", err
	}
	if agentID == OrgScope {
		return "", Errorf(EINVALID, "agentId: %q is reserved", OrgScope)
	}
	if c.AgentID != "" {
		if agentID != "" && agentID != c.AgentID {
			return "", Errorf(EFORBIDDEN, "agentId: this key is bound to agent %q and cannot write for another agent", c.AgentID)
		}
		if scope == "org" {
			if agentID != "" {
				return "", Errorf(EINVALID, "scope: \"org\" cannot be combined with agentId")
			}
			return "", nil
		}
		return c.AgentID, nil
	}
	switch {
	case scope == "agent" && agentID == "":
		return "", Errorf(EINVALID, "agentId: required with scope \"agent\" for an org-level key")
	case scope == "org" && agentID != "":
		return "", Errorf(EINVALID, "scope: \"org\" cannot be combined with agentId")
	}
	return agentID, nil
}

// Bind returns f bound to c: the org always comes from the caller, and an
// agent-bound caller's view is restricted to what it may see.
func (c Caller) Bind(f Filter) (Filter, error) {
	f.OrgID = c.OrgID
	f.Viewer = c.AgentID
	f.Audiences = nil
	if c.Acting != nil {
		f.Audiences = c.Acting.Audiences()
	}
	f.Pending = false // staged memories are the pipelines' own, never a caller's
	if c.AgentID != "" && f.AgentID != "" && f.AgentID != OrgScope && f.AgentID != c.AgentID {
		return f, Errorf(EFORBIDDEN, "agentId: this key is bound to agent %q and cannot read another agent's memories", c.AgentID)
	}
	return f, f.Validate()
}

// WriteScopeOf splits a write request's scope and visibility fields into
// the agent scope Caller.WriteScope takes ("", "org" or "agent") and the
// visibility asked for ("" when neither names one).
//
//   - scope "org" and "agent", this API's older names, choose the agent
//     scope; a room, world or user visibility may go with either.
//   - any other scope is a visibility (ElizaOS's shared, private, room,
//     and world, user): shared writes to the org scope, agent (private)
//     to the agent's.
//
// A scope and a visibility that disagree are EINVALID.
func WriteScopeOf(scope, visibility string) (string, Visibility, error) {
	vv, err := ParseVisibility("visibility", visibility)
	if err != nil {
		return "", "", err
	}
	contradicts := Errorf(EINVALID, "visibility: %q contradicts scope %q", visibility, scope)
	switch scope {
	case "org", "agent":
		if (scope == "org" && vv == VisibilityAgent) || (scope == "agent" && vv == VisibilityShared) {
			return "", "", contradicts
		}
		return scope, vv, nil
	}
	sv, err := ParseVisibility("scope", scope)
	if err != nil {
		return "", "", err
	}
	if sv != "" && vv != "" && sv != vv {
		return "", "", contradicts
	}
	v := sv
	if v == "" {
		v = vv
	}
	switch v {
	case VisibilityShared:
		return "org", v, nil
	case VisibilityAgent:
		return "agent", v, nil
	}
	return "", v, nil
}

// Place sets the visibility of m, a new memory c writes, to v or, when v is
// "", to m's default (DefaultVisibility). A caller bound to an end user (a
// token) writes only that user's memories and, when bound to a room, that
// room's: its user becomes m's UserID, and any other visibility, user or
// room is EFORBIDDEN.
func (c Caller) Place(m *Memory, v Visibility) error {
	if b := c.Binding; b != nil {
		switch {
		case m.UserID == "":
			m.UserID = b.UserID
		case m.UserID != b.UserID:
			return Errorf(EFORBIDDEN, "userId: this token is bound to user %q", b.UserID)
		}
		if v == "" {
			v = VisibilityUser
			if m.Type == TypeMessage && m.RoomID != "" {
				v = VisibilityRoom
			}
		}
		switch {
		case v == VisibilityUser:
		case v == VisibilityRoom && b.RoomID != "" && m.RoomID == b.RoomID:
		case v == VisibilityRoom:
			return Errorf(EFORBIDDEN, "roomId: this token may write only to the room it is bound to")
		default:
			return Errorf(EFORBIDDEN, "visibility: a user token writes only its user's or its room's memories, not %q", v)
		}
		if m.WorldID == "" {
			m.WorldID = b.WorldID
		}
	}
	if v == "" {
		v = m.DefaultVisibility()
	}
	m.Visibility = v
	return m.validVisibility()
}
