package httpapi

import (
	"github.com/agentmem/agentmem/service"
	"net/http"

	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/extract"
)

// postMessages stores conversation turns ({"messages": [...]}, each a
// memory of type message) and queues the new ones for fact extraction. It
// answers 202 with the ids: facts appear once the queue has run.
func (s *Server) postMessages(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var req struct {
		Messages []service.NewMemory `json:"messages"`
	}
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	for i := range req.Messages {
		if t := req.Messages[i].Type; t != "" && t != memory.TypeMessage {
			return memory.Errorf(memory.EINVALID, "messages[%d].type: must be %q (or omitted)", i, memory.TypeMessage)
		}
		req.Messages[i].Type = memory.TypeMessage
		if req.Messages[i].EntityID == "" {
			return memory.Errorf(memory.EINVALID, "messages[%d].entityId: the speaker is required", i)
		}
	}
	res, err := s.svc.Create(r.Context(), c, req.Messages)
	if err != nil {
		return err
	}
	var ids []string
	for _, x := range res {
		if !x.Duplicate {
			ids = append(ids, x.ID)
		}
	}
	queued := false
	if len(ids) > 0 {
		if err := s.queue.Enqueue(r.Context(), extract.Job{OrgID: c.OrgID, AgentID: c.AgentID, MessageIDs: ids}); err != nil {
			// The turns are stored; extraction can be retried by posting them
			// again later (duplicates are not re-queued).
			s.log.ErrorContext(r.Context(), "queueing extraction failed", "org", c.OrgID, "err", err)
			return memory.Errorf(memory.EUNAVAILABLE, "the messages were stored but could not be queued for extraction; retry later")
		}
		queued = true
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"memories": res, "extractionQueued": queued})
	return nil
}
