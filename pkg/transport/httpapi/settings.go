package httpapi

import (
	"context"
	"net/http"
	"strconv"

	"github.com/agentmem/agentmem/pkg/memory"
)

// SettingsStore reads and writes an org's extraction settings (the port of
// service.SettingsStore). Write validates and normalizes the settings
// (EINVALID naming the field) and, with ifVersion > 0, stores them only
// over that version (ECONFLICT otherwise).
type SettingsStore interface {
	Read(ctx context.Context, org string) (memory.ExtractionSettings, int64, error)
	Write(ctx context.Context, org string, s memory.ExtractionSettings, ifVersion int64) (memory.ExtractionSettings, int64, error)
}

// WithSettings serves GET and PUT /v1/admin/settings/extraction, the
// caller's org's extraction settings, for org-level keys. Give it the
// store the extraction pipeline reads, so that in one process a change
// applies to the next job.
func WithSettings(st SettingsStore) Option { return func(s *Server) { s.settings = st } }

// SettingsResponse is the body of GET and PUT /v1/admin/settings/extraction:
// the settings and the version of their record (0 before any PUT), also
// sent as the ETag for If-Match.
type SettingsResponse struct {
	Settings memory.ExtractionSettings `json:"settings"`
	Version  int64                     `json:"version"`
}

func writeSettings(w http.ResponseWriter, set memory.ExtractionSettings, v int64) {
	if v > 0 {
		w.Header().Set("ETag", strconv.Quote(strconv.FormatInt(v, 10)))
	}
	writeJSON(w, http.StatusOK, SettingsResponse{Settings: set, Version: v})
}

func (s *Server) getExtractionSettings(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := orgAdmin(c); err != nil {
		return err
	}
	set, v, err := s.settings.Read(r.Context(), c.OrgID)
	if err != nil {
		return err
	}
	writeSettings(w, set, v)
	return nil
}

// putExtractionSettings replaces the caller's org's extraction settings
// with the body (an empty object restores the defaults). With If-Match the
// stored version must be the one given (412 otherwise), as for PATCH of a
// memory.
func (s *Server) putExtractionSettings(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	if err := orgAdmin(c); err != nil {
		return err
	}
	ifVersion, err := ifMatch(r)
	if err != nil {
		return err
	}
	body, err := readBody(w, r)
	if err != nil {
		return err
	}
	var set memory.ExtractionSettings
	if err := decodeStrict(body, &set); err != nil {
		return err
	}
	set, v, err := s.settings.Write(r.Context(), c.OrgID, set, ifVersion)
	if err != nil {
		return preconditionFailed(err, ifVersion)
	}
	s.log.InfoContext(r.Context(), "extraction settings changed", "org", c.OrgID, "version", v, "settings", set.String())
	writeSettings(w, set, v)
	return nil
}
