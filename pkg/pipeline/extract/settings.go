package extract

import (
	"context"

	"github.com/agentmem/agentmem/pkg/memory"
)

// OrgSettings gives each org's extraction settings to the pipeline, with
// the version of the record they come from (0 when the org has none);
// service.SettingsStore is the one the roots wire.
type OrgSettings interface {
	ExtractionSettings(ctx context.Context, org string) (memory.ExtractionSettings, int64, error)
}

// Steerable is an extractor that can follow an org's instructions and
// language (the LLM extractor). An extractor that is not (the offline one)
// gets the keep and drop filter only.
type Steerable interface {
	Extractor
	// Steer returns the extractor following s; the receiver is unchanged.
	Steer(s memory.ExtractionSettings) Extractor
}
