// Package consolidation builds the consolidation job from its
// configuration. Only the binaries that consolidate import it.
package consolidation

import (
	"log/slog"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/memory"
	"github.com/agentmem/agentmem/pipeline/consolidate"
	"github.com/agentmem/agentmem/service"
)

// New returns the consolidation job over svc, keeping its checkpoints and
// last report in records, with the policy of cfg.
func New(svc *service.Service, records memory.RecordStore, cfg config.Consolidation, log *slog.Logger) *consolidate.Job {
	return &consolidate.Job{Service: svc, Records: records, Log: log, Config: consolidate.Config{
		HalfLifeStandard: cfg.HalfLifeStandard, HalfLifeEphemeral: cfg.HalfLifeEphemeral,
		ArchiveBelow: cfg.ArchiveBelow, Retention: cfg.Retention}}
}
