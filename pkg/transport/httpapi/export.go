package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
)

// Import limits: the whole body, the whole body of an agent-bound key
// (which imports its own agent's scope only, so a smaller cap), and one
// line (a memory at its limits with a large embedding fits well within
// it).
const (
	MaxImportBytes      = 256 << 20
	MaxAgentImportBytes = 32 << 20
	MaxImportLineBytes  = 4 << 20
)

// importLimit is the body cap of c's imports.
func importLimit(c memory.Caller) int64 {
	if c.AgentID != "" {
		return MaxAgentImportBytes
	}
	return MaxImportBytes
}

// export serves GET /v1/export: the caller's org, or one scope (agentId;
// an agent key's own scope always), as NDJSON, one typed line per memory,
// relation and document record; embeddings=true adds the embeddings.
func (s *Server) export(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	opts := service.ExportOptions{}
	var acting Filters
	for name, vs := range r.URL.Query() {
		v := vs[len(vs)-1]
		switch name {
		case "userId":
			acting.UserID = v
		case "roomId":
			acting.RoomID = v
		case "worldId":
			acting.WorldID = v
		case "agentId":
			if err := memory.ValidID("agentId", v); err != nil {
				return err
			}
			opts.AgentID = v
		case "embeddings":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return memory.Errorf(memory.EINVALID, "embeddings: %q is not true or false", v)
			}
			opts.Embeddings = b
		default:
			return memory.Errorf(memory.EINVALID, "query parameter %q is not supported", name)
		}
	}
	c, err := s.act(r, c, acting)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	started := false
	flusher, _ := w.(http.Flusher)
	lines := 0
	err = s.svc.Export(r.Context(), c, opts, func(l service.ExportLine) error {
		if !started {
			w.Header().Set("Content-Type", "application/x-ndjson")
			w.WriteHeader(http.StatusOK)
			started = true
		}
		if err := enc.Encode(l); err != nil {
			return err
		}
		if lines++; lines%500 == 0 {
			if err := bw.Flush(); err != nil {
				return err
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		return nil
	})
	if err != nil && !started {
		return err
	}
	if err != nil {
		// The status is sent: end the stream with an error line, so a
		// client never takes a cut export for a whole one.
		s.log.ErrorContext(r.Context(), "export failed mid-stream", "org", c.OrgID, "err", err)
		enc.Encode(map[string]any{"kind": "error", "code": memory.ErrorCode(err), "message": "the export was cut short; retry"})
		bw.Flush()
		return nil
	}
	if !started {
		w.Header().Set("Content-Type", "application/x-ndjson")
		w.WriteHeader(http.StatusOK)
	}
	return bw.Flush()
}

// importLines serves POST /v1/import: an export's NDJSON read back into
// the caller's org (never the file's), idempotently, with a report of
// what was created, what existed already and which lines failed. It
// reserves quota as every write does (service.Importer.WithQuota): a line
// over a quota stops the import with the quota error naming the line.
func (s *Server) importLines(w http.ResponseWriter, r *http.Request, c memory.Caller) error {
	im, err := s.svc.NewImporter(c)
	if err != nil {
		return err
	}
	if s.quotas != nil {
		im.WithQuota(func(ctx context.Context, add memory.OrgUsage) (func(), error) { return s.reserve(ctx, c, add) })
	}
	limit := importLimit(c)
	body := http.MaxBytesReader(w, r.Body, limit)
	rd := bufio.NewReaderSize(body, 64<<10)
	for n := 1; ; n++ {
		line, err := readLine(rd)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return memory.Errorf(memory.ETOOLARGE, "body: exceeds the limit of %d bytes (%d for an org-level key)", limit, MaxImportBytes)
		case errors.Is(err, errLineTooLong):
			return memory.Errorf(memory.ETOOLARGE, "line %d: exceeds the limit of %d bytes", n, MaxImportLineBytes)
		case err != nil && err != io.EOF:
			return memory.Errorf(memory.EINVALID, "body: could not be read")
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if aerr := im.Add(r.Context(), n, t); aerr != nil {
				return aerr
			}
		}
		if err == io.EOF {
			break
		}
	}
	rep, err := im.Finish(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most MaxImportLineBytes (without its
// newline); io.EOF with the last line.
func readLine(rd *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := rd.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > MaxImportLineBytes {
			return nil, errLineTooLong
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(out, []byte("\n")), err
	}
}
