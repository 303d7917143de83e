package httpapi

import (
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/pipeline/extract"
)

// postMessages stores conversation turns ({"messages": [...]}, each a
// memory of type message) and queues them for fact extraction. It answers
// 202 with the ids: facts appear once the queue has run.
//
// Turns are deduplicated by the client's key only (externalId, or the
// Idempotency-Key header, which keys the i-th turn as "<key>/<i>"): the same
// words said twice are two turns. A retry that finds its turns stored queues
// them again, so a turn stored by a request whose queueing failed (503) is
// extracted on the retry; extraction is idempotent (a fact found again is a
// duplicate and writes nothing).
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
	idem := r.Header.Get("Idempotency-Key")
	if err := memory.ValidID("Idempotency-Key", idem); err != nil {
		return err
	}
	for i := range req.Messages {
		if idem != "" && req.Messages[i].ExternalID == "" {
			req.Messages[i].ExternalID = fmt.Sprintf("%s/%d", idem, i)
		}
		if t := req.Messages[i].Type; t != "" && t != memory.TypeMessage {
			return memory.Errorf(memory.EINVALID, "messages[%d].type: must be %q (or omitted)", i, memory.TypeMessage)
		}
		req.Messages[i].Type = memory.TypeMessage
		if req.Messages[i].EntityID == "" {
			return memory.Errorf(memory.EINVALID, "messages[%d].entityId: the speaker is required", i)
		}
	}
	release, err := s.reserve(r.Context(), c, newMemoriesUsage(req.Messages))
	if err != nil {
		return err
	}
	defer release()
	res, err := s.svc.Create(r.Context(), c, req.Messages)
	if err != nil {
		return err
	}
	var ids []string
	seen := map[string]bool{}
	for _, x := range res {
		if !seen[x.ID] {
			seen[x.ID] = true
			ids = append(ids, x.ID)
		}
	}
	queued := false
	if len(ids) > 0 {
		if err := s.queue.Enqueue(r.Context(), extract.Job{OrgID: c.OrgID, AgentID: c.AgentID, MessageIDs: ids}); err != nil {
			// The turns are stored; a retry with the same externalIds (or
			// Idempotency-Key) finds them and queues them again.
			s.log.ErrorContext(r.Context(), "queueing extraction failed", "org", c.OrgID, "err", err)
			return memory.Errorf(memory.EUNAVAILABLE, "the messages were stored but could not be queued for extraction; retry with the same externalId or Idempotency-Key and they will be queued")
		}
		queued = true
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"memories": res, "extractionQueued": queued})
	return nil
}
