package httpapi

import (
	"net/http"

	"github.com/agentmem/agentmem/pkg/memory"
)

// MountedHandler serves the requests of another transport mounted on the
// API (the MCP server at /mcp), once the API has authenticated them: c is
// the caller of the bearer key, or of the API Gateway authorizer's
// context, exactly as for the API's own routes.
type MountedHandler func(w http.ResponseWriter, r *http.Request, c memory.Caller)

// WithMount serves pattern with h behind the API's authentication, request
// ids, access log, metrics and API Gateway translation, so that a second
// transport shares the keys and the tenancy of the API. No grant is
// checked here: h checks the grant of each operation it performs.
func WithMount(pattern string, h MountedHandler) Option {
	return func(s *Server) {
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			routed(w, r, pattern)
			c, err := s.caller(r)
			if err != nil {
				s.writeError(w, r, err)
				return
			}
			if lw, ok := w.(*logWriter); ok {
				lw.org, lw.agent = c.OrgID, c.AgentID
			}
			if err := s.admit(w, r, c); err != nil {
				s.writeError(w, r, err)
				return
			}
			h(w, r, c)
		})
	}
}
