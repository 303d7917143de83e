package httpapi

import (
	"context"
	"net/http"
	"slices"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/registry"
)

// The registry API: an org's entities, worlds and rooms, and the
// participants of each room (ElizaOS's session model). The org comes from
// the key; an agent-bound key sees its agent's items and the org-wide
// ones, and changes its own only (the registry holds the rule). Each item
// has a version, sent as its ETag, which If-Match makes PATCH and DELETE
// conditional on, as for a memory.

// WithRegistry serves /v1/entities, /v1/worlds and /v1/rooms with reg; a
// nil reg serves nothing (the store keeps no records).
func WithRegistry(reg *registry.Registry) Option {
	return func(s *Server) {
		if reg != nil {
			s.registry = reg
		}
	}
}

// routeRegistry registers the registry paths when the server has a
// registry.
func (s *Server) routeRegistry() {
	if s.registry == nil {
		return
	}
	reg := s.registry
	s.route("POST /v1/entities", createItem(reg.CreateEntity, "/v1/entities/", entityTag), memory.GrantWrite)
	s.route("GET /v1/entities", listItems("entities", func(r *http.Request, c memory.Caller, p registry.Page) (any, string, error) {
		return emptyList(reg.ListEntities(r.Context(), c, p))
	}), memory.GrantRead)
	s.route("GET /v1/entities/{id}", getItem(reg.GetEntity, entityTag), memory.GrantRead)
	s.route("PATCH /v1/entities/{id}", patchItem(reg.UpdateEntity, entityTag), memory.GrantWrite)
	s.route("DELETE /v1/entities/{id}", deleteItem(reg.DeleteEntity), memory.GrantDelete)

	s.route("POST /v1/worlds", createItem(reg.CreateWorld, "/v1/worlds/", worldTag), memory.GrantWrite)
	s.route("GET /v1/worlds", listItems("worlds", func(r *http.Request, c memory.Caller, p registry.Page) (any, string, error) {
		return emptyList(reg.ListWorlds(r.Context(), c, p))
	}), memory.GrantRead)
	s.route("GET /v1/worlds/{id}", getItem(reg.GetWorld, worldTag), memory.GrantRead)
	s.route("PATCH /v1/worlds/{id}", patchItem(reg.UpdateWorld, worldTag), memory.GrantWrite)
	s.route("DELETE /v1/worlds/{id}", deleteItem(reg.DeleteWorld), memory.GrantDelete)

	s.route("POST /v1/rooms", createItem(reg.CreateRoom, "/v1/rooms/", roomTag), memory.GrantWrite)
	s.route("GET /v1/rooms", listItems("rooms", func(r *http.Request, c memory.Caller, p registry.Page) (any, string, error) {
		return emptyList(reg.ListRooms(r.Context(), c, r.URL.Query().Get("worldId"), p))
	}, "worldId"), memory.GrantRead)
	s.route("GET /v1/rooms/{id}", getItem(reg.GetRoom, roomTag), memory.GrantRead)
	s.route("PATCH /v1/rooms/{id}", patchItem(reg.UpdateRoom, roomTag), memory.GrantWrite)
	s.route("DELETE /v1/rooms/{id}", deleteItem(reg.DeleteRoom), memory.GrantDelete)
	s.route("GET /v1/rooms/{id}/participants", s.listParticipants, memory.GrantRead)
	s.route("POST /v1/rooms/{id}/participants", s.addParticipant, memory.GrantWrite)
	s.route("DELETE /v1/rooms/{id}/participants/{entityId}", s.removeParticipant, memory.GrantWrite)
}

// The ids and versions (ETags) of the three kinds.
func entityTag(e *memory.EntityProfile) (string, int64) { return e.ID, e.Version }
func worldTag(w *memory.World) (string, int64)          { return w.ID, w.Version }
func roomTag(r *memory.Room) (string, int64)            { return r.ID, r.Version }

// createItem serves a POST of a new item: 201 with its Location and ETag.
func createItem[In, T any](create func(ctx context.Context, c memory.Caller, in In) (*T, error), base string, key func(*T) (string, int64)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		var in In
		if err := decodeStrict(body, &in); err != nil {
			return err
		}
		x, err := create(r.Context(), c, in)
		if err != nil {
			return err
		}
		id, v := key(x)
		w.Header().Set("ETag", etag(v))
		w.Header().Set("Location", base+id)
		writeJSON(w, http.StatusCreated, x)
		return nil
	}
}

// getItem serves a GET of one item, with its ETag (304 while the client's
// copy is current).
func getItem[T any](get func(ctx context.Context, c memory.Caller, id string) (*T, error), key func(*T) (string, int64)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
		x, err := get(r.Context(), c, r.PathValue("id"))
		if err != nil {
			return err
		}
		_, v := key(x)
		tag := etag(v)
		w.Header().Set("ETag", tag)
		if notModified(r, tag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
		writeJSON(w, http.StatusOK, x)
		return nil
	}
}

// patchItem serves a PATCH of one item; If-Match makes it conditional.
func patchItem[P, T any](update func(ctx context.Context, c memory.Caller, id string, p P, ifVersion int64) (*T, error), key func(*T) (string, int64)) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
		body, err := readBody(w, r)
		if err != nil {
			return err
		}
		var p P
		if err := decodeStrict(body, &p); err != nil {
			return err
		}
		ifVersion, err := ifMatch(r)
		if err != nil {
			return err
		}
		x, err := update(r.Context(), c, r.PathValue("id"), p, ifVersion)
		if err != nil {
			return preconditionFailed(err, ifVersion)
		}
		_, v := key(x)
		w.Header().Set("ETag", etag(v))
		writeJSON(w, http.StatusOK, x)
		return nil
	}
}

// deleteItem serves a DELETE of one item; If-Match makes it conditional.
func deleteItem(del func(ctx context.Context, c memory.Caller, id string, ifVersion int64) error) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
		ifVersion, err := ifMatch(r)
		if err != nil {
			return err
		}
		if err := del(r.Context(), c, r.PathValue("id"), ifVersion); err != nil {
			return preconditionFailed(err, ifVersion)
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
}

// listItems serves a GET of a page of items, as {name: [...],
// "nextCursor": ...}; the query takes limit, cursor and the names of
// filters.
func listItems(name string, list func(r *http.Request, c memory.Caller, p registry.Page) (any, string, error), filters ...string) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
		q := r.URL.Query()
		for k := range q {
			if k != "limit" && k != "cursor" && !slices.Contains(filters, k) {
				return memory.Errorf(memory.EINVALID, "query parameter %q is not supported", k)
			}
		}
		limit, err := intParam(r, "limit")
		if err != nil {
			return err
		}
		if q.Has("limit") && limit == 0 {
			return memory.Errorf(memory.EINVALID, "limit: must be between 1 and %d", registry.MaxLimit)
		}
		items, next, err := list(r, c, registry.Page{Cursor: q.Get("cursor"), Limit: limit})
		if err != nil {
			return err
		}
		writeJSON(w, http.StatusOK, map[string]any{name: items, "nextCursor": next})
		return nil
	}
}

// emptyList passes a list's answer on, with no items as [] (never null).
func emptyList[T any](items []*T, next string, err error) (any, string, error) {
	if items == nil {
		items = []*T{}
	}
	return items, next, err
}

// ParticipantRequest is the body of POST /v1/rooms/{id}/participants.
type ParticipantRequest struct {
	EntityID string `json:"entityId"`
}

// participantsResponse is the body of the participants endpoints: the
// room's participants, and its version (also the ETag).
type participantsResponse struct {
	Participants []string `json:"participants"`
	Version      int64    `json:"version"`
}

func writeParticipants(w http.ResponseWriter, room *memory.Room) {
	ps := room.Participants
	if ps == nil {
		ps = []string{}
	}
	w.Header().Set("ETag", etag(room.Version))
	writeJSON(w, http.StatusOK, participantsResponse{Participants: ps, Version: room.Version})
}

func (s *Server) listParticipants(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	room, err := s.registry.GetRoom(r.Context(), c, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeParticipants(w, room)
	return nil
}

// addParticipant adds the body's entity to the room; adding it again
// changes nothing (200 either way).
func (s *Server) addParticipant(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req ParticipantRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	room, err := s.registry.AddParticipant(r.Context(), c, r.PathValue("id"), req.EntityID)
	if err != nil {
		return err
	}
	writeParticipants(w, room)
	return nil
}

func (s *Server) removeParticipant(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	room, err := s.registry.RemoveParticipant(r.Context(), c, r.PathValue("id"), r.PathValue("entityId"))
	if err != nil {
		return err
	}
	writeParticipants(w, room)
	return nil
}
