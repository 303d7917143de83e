// Package consolidation builds the consolidation job from its
// configuration. Only the binaries that consolidate import it.
package consolidation

import (
	"github.com/agentmem/agentmem/pkg/telemetry"
	"log/slog"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/pipeline/consolidate"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/wiring"
)

// Consumer names the job in capability errors.
const Consumer = "consolidation"

// New returns the consolidation job over svc with the policy of cfg. It
// keeps its checkpoints and last report in the store's records and visits
// every org the store lists: a store without either fails here, at start.
func New(svc *service.Service, caps wiring.Capabilities, cfg config.Consolidation, log *slog.Logger) (*consolidate.Job, error) {
	if err := caps.Require(Consumer, wiring.Records, wiring.OrgListing); err != nil {
		return nil, err
	}
	return &consolidate.Job{Service: svc.Pipelines(), Records: caps.Records, Log: log, Config: consolidate.Config{
		HalfLifeStandard: cfg.HalfLifeStandard, HalfLifeEphemeral: cfg.HalfLifeEphemeral,
		ArchiveBelow: cfg.ArchiveBelow, Retention: cfg.Retention}}, nil
}

// Outcomes counts a consolidation run for telemetry.Handler: each org
// consolidated is ok; a run that stopped with an error counts one failure.
func Outcomes[E any](_ E, reports []consolidate.Report, err error) map[string]int {
	out := map[string]int{telemetry.OutcomeOK: len(reports)}
	if err != nil {
		out[telemetry.OutcomeFailed] = 1
	}
	return out
}
