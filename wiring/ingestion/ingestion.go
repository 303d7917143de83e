// Package ingestion builds the document ingestion pipeline from its
// configuration. Only the binaries that ingest documents import it: the
// pipeline links the loaders, among them the PDF parser.
package ingestion

import (
	"log/slog"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/ingest"
	"github.com/agentmem/agentmem/service"
)

// New returns the ingestion pipeline over svc, keeping document status in
// records, with the limits and fragment sizes of cfg.
func New(svc *service.Service, records memory.RecordStore, cfg config.Ingest, log *slog.Logger) *ingest.Pipeline {
	return &ingest.Pipeline{Service: svc, Records: records, Log: log, MaxBytes: cfg.MaxBytes,
		Splitter: ingest.Splitter{Size: cfg.ChunkSize, Overlap: cfg.ChunkOverlap}}
}
