package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// The client's key endpoints, /v1/memories/by-key/{key}: the memory whose
// externalId is key, unique per scope, for stores that address memories by
// their own keys (a framework's key-value store). The scope is chosen as
// for a create: the body's scope and agentId on PUT, the query's on GET
// and DELETE.

// putByKey creates (201, Location) or replaces (200) the memory of the
// path's key with the body, honouring If-Match and If-None-Match: *.
func (s *Server) putByKey(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	key := r.PathValue("key")
	var cond service.PutCondition
	var err error
	if cond.IfVersion, err = ifMatch(r); err != nil {
		return err
	}
	if cond.CreateOnly, err = createOnly(r); err != nil {
		return err
	}
	if cond.CreateOnly && cond.IfVersion != 0 {
		return memory.Errorf(memory.EINVALID, "If-Match and If-None-Match: give one, not both")
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var n service.NewMemory
	if err := decodeStrict(body, &n); err != nil {
		return err
	}
	if n.ExternalID != "" && n.ExternalID != key {
		return memory.Errorf(memory.EINVALID, "externalId: %q differs from the key in the path %q; leave it out", n.ExternalID, key)
	}
	n.ExternalID = key
	release, err := s.reserve(r.Context(), c, newMemoriesUsage([]service.NewMemory{n}))
	if err != nil {
		return err
	}
	defer release()
	m, created, err := s.svc.PutByKey(r.Context(), c, n, cond)
	if err != nil {
		return err
	}
	w.Header().Set("ETag", etag(m.Version))
	status := http.StatusOK
	if created {
		status = http.StatusCreated
		w.Header().Set("Location", memoryLocation(m.ID))
	}
	writeJSON(w, status, m)
	return nil
}

// keyScope reads the scope and agentId query parameters of the GET and
// DELETE of a key, refusing any other.
func keyScope(r *http.Request) (service.KeyScope, error) {
	q := r.URL.Query()
	for name := range q {
		switch name {
		case "scope", "visibility", "agentId", "roomId", "worldId", "userId":
		default:
			return service.KeyScope{}, memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
		}
	}
	return service.KeyScope{Scope: q.Get("scope"), Visibility: q.Get("visibility"), AgentID: q.Get("agentId"),
		RoomID: q.Get("roomId"), WorldID: q.Get("worldId"), UserID: q.Get("userId")}, nil
}

func (s *Server) getByKey(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	ks, err := keyScope(r)
	if err != nil {
		return err
	}
	m, err := s.svc.GetByKey(r.Context(), c, ks, r.PathValue("key"))
	if err != nil {
		return err
	}
	writeMemory(w, r, m)
	return nil
}

func (s *Server) deleteByKey(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	ks, err := keyScope(r)
	if err != nil {
		return err
	}
	ifVersion, err := ifMatch(r)
	if err != nil {
		return err
	}
	m, err := s.svc.GetByKey(r.Context(), c, ks, r.PathValue("key"))
	if err != nil {
		return err
	}
	if _, err := s.svc.Delete(r.Context(), c, m.ID, service.DeleteOptions{IfVersion: ifVersion}); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
