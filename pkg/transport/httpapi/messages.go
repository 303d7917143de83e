package httpapi

import (
	"encoding/json"
	"fmt"
	"github.com/agentmem/agentmem/pkg/service"
	"net/http"
	"strings"

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
	var req MessagesRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if err := req.resolve(); err != nil {
		return err
	}
	idem := r.Header.Get("Idempotency-Key")
	if err := memory.ValidID("Idempotency-Key", idem); err != nil {
		return err
	}
	req.Messages = nil
	msgs := req.turns
	for i := range msgs {
		if idem != "" && msgs[i].ExternalID == "" {
			msgs[i].ExternalID = fmt.Sprintf("%s/%d", idem, i)
		}
		if t := msgs[i].Type; t != "" && t != memory.TypeMessage {
			return memory.Errorf(memory.EINVALID, "messages[%d].type: must be %q (or omitted)", i, memory.TypeMessage)
		}
		msgs[i].Type = memory.TypeMessage
		if msgs[i].EntityID == "" {
			return memory.Errorf(memory.EINVALID, "messages[%d].entityId: the speaker is required", i)
		}
	}
	release, err := s.reserve(r.Context(), c, newMemoriesUsage(msgs))
	if err != nil {
		return err
	}
	defer release()
	// A store that keeps an extraction log records the new turns as
	// awaiting extraction with them, so a crash before the queue ran them
	// loses nothing (memory.ExtractionLog).
	res, err := s.svc.Create(memory.AwaitExtraction(r.Context()), c, msgs)
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

// MessagesRequest is the body of POST /v1/messages: turns in this API's
// shape (a memory of type message) or in the shape every agent framework
// produces, OpenAI's chat message ({"role", "content", "name"}); the two
// may be mixed. The request's roomId, worldId, userId, sessionId, agentId
// and scope apply to every turn that does not set its own: userId names
// the end user whose conversation it is, so what is learnt from it is
// that user's (see memory.Memory.Inherit).
type MessagesRequest struct {
	Messages  []json.RawMessage `json:"messages"`
	RoomID    string            `json:"roomId,omitempty"`
	WorldID   string            `json:"worldId,omitempty"`
	UserID    string            `json:"userId,omitempty"`
	SessionID string            `json:"sessionId,omitempty"`
	AgentID   string            `json:"agentId,omitempty"`
	Scope     string            `json:"scope,omitempty"`

	turns []service.NewMemory
}

// chatMessage is an OpenAI-shaped turn. Content is a string or an array
// of parts, of which the text parts are kept.
type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Name    string          `json:"name,omitempty"`
}

// chatRoles are the roles a turn may have; the speaker of a turn without
// a name is its role, or for a user turn the request's userId.
var chatRoles = []string{"user", "assistant", "system", "tool", "developer"}

// resolve decodes the turns of r into memories.
func (r *MessagesRequest) resolve() error {
	r.turns = make([]service.NewMemory, len(r.Messages))
	for i, raw := range r.Messages {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(raw, &probe); err != nil {
			return memory.Errorf(memory.EINVALID, "messages[%d]: must be a JSON object", i)
		}
		n := &r.turns[i]
		if _, chat := probe["role"]; chat {
			if err := r.chatTurn(i, raw, n); err != nil {
				return err
			}
		} else if err := decodeStrict(raw, n); err != nil {
			return prefixField(fmt.Sprintf("messages[%d].", i), err)
		}
		for _, d := range []struct {
			dst *string
			v   string
		}{
			{&n.RoomID, r.RoomID}, {&n.WorldID, r.WorldID}, {&n.UserID, r.UserID}, {&n.SessionID, r.SessionID}, {&n.AgentID, r.AgentID}, {&n.Scope, r.Scope},
		} {
			if *d.dst == "" {
				*d.dst = d.v
			}
		}
	}
	return nil
}

// chatTurn reads the OpenAI-shaped turn i into n.
func (r *MessagesRequest) chatTurn(i int, raw json.RawMessage, n *service.NewMemory) error {
	var m chatMessage
	if err := decodeStrict(raw, &m); err != nil {
		return prefixField(fmt.Sprintf("messages[%d].", i), err)
	}
	if !contains(chatRoles, m.Role) {
		return memory.Errorf(memory.EINVALID, "messages[%d].role: %q is not one of %s", i, m.Role, strings.Join(chatRoles, ", "))
	}
	text, err := chatText(m.Content)
	if err != nil {
		return prefixField(fmt.Sprintf("messages[%d].", i), err)
	}
	n.Content = memory.Content{Text: text}
	n.EntityID = m.Name
	if m.Role == "user" && n.EntityID == "" {
		n.EntityID = r.UserID
	}
	if n.EntityID == "" {
		n.EntityID = m.Role
	}
	meta, _ := json.Marshal(map[string]string{"role": m.Role})
	n.Metadata = meta
	return nil
}

// chatText is the text of an OpenAI message's content: the string, or the
// text parts of an array joined by newlines.
func chatText(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", memory.Errorf(memory.EINVALID, "content: a string or an array of content parts")
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// prefixField prefixes the field an EINVALID error names with p.
func prefixField(p string, err error) error {
	if e, ok := err.(*memory.Error); ok && e.Code == memory.EINVALID {
		return memory.Errorf(memory.EINVALID, "%s%s", p, strings.TrimPrefix(e.Message, "body: "))
	}
	return err
}
