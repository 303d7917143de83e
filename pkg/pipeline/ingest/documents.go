package ingest

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// The document API: documents handed to the pipeline directly (the HTTP
// API, memctl) rather than uploaded to S3. They are stored under the key an
// upload of the same name would have, so either way names one document.

// Key is the object key of document name for owner:
// {orgId}/{agentId or _org}/{name}, the layout ParseKey reads. It is the one
// place a key is made.
func Key(owner memory.Caller, name string) string {
	seg := memory.OrgScope
	if owner.AgentID != "" {
		seg = owner.AgentID
	}
	return owner.OrgID + "/" + seg + "/" + name
}

// Submit ingests data as document name (a path with an extension, which
// selects the loader) for owner, the org and the agent scope (none: the
// org scope) the document belongs to. Submitting a name again replaces
// the document. See Ingest. Errors: EINVALID for a name that
// memory.ValidDocumentName refuses (every caller: HTTP checks its
// request's field first, memctl relies on this).
func (p *Pipeline) Submit(ctx context.Context, owner memory.Caller, name string, data []byte) (Status, error) {
	if err := memory.ValidDocumentName("name", name); err != nil {
		return Status{}, err
	}
	return p.Ingest(ctx, owner, Key(owner, name), data, "")
}

// Delete removes document id, as c sees it (ENOTFOUND otherwise): its
// memories, staged ones included, and its status, and returns the status it
// had. An agent-bound caller deletes an org-scope document, whose
// fragments every agent of the org shares, only with the delete:org grant
// (EFORBIDDEN), as it would its memories.
func (p *Pipeline) Delete(ctx context.Context, c memory.Caller, id string) (Status, error) {
	st, err := p.Get(ctx, c, id)
	if err != nil {
		return Status{}, err
	}
	if c.AgentID != "" && st.AgentID == "" && !c.Grants.Has(memory.GrantDeleteOrg) {
		return Status{}, memory.Errorf(memory.EFORBIDDEN, "document %q is in the org scope: deleting it needs an org-level key or the delete:org grant", id)
	}
	if _, err := p.Remove(ctx, memory.Caller{OrgID: st.OrgID, AgentID: st.AgentID}, st.Key); err != nil {
		return Status{}, err
	}
	return st, nil
}
