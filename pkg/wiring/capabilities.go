package wiring

import (
	"fmt"
	"strings"

	"github.com/agentmem/agentmem/pkg/memory"
)

// A Capability is something a store keeps beyond memories, which some
// consumers need.
type Capability int

// The capabilities.
const (
	// Relations: edges between memories (memory.RelationStore); fact
	// extraction records what each fact supports, supersedes or
	// contradicts.
	Relations Capability = iota + 1
	// Records: small per-org JSON records (memory.RecordStore); document
	// ingestion keeps each document's status, consolidation its
	// checkpoints and last report.
	Records
	// OrgListing: the list of the store's orgs (memory.OrgLister);
	// scheduled consolidation visits every org.
	OrgListing
)

// String names c and its port.
func (c Capability) String() string {
	switch c {
	case Relations:
		return "relations (memory.RelationStore)"
	case Records:
		return "records (memory.RecordStore)"
	case OrgListing:
		return "org listing (memory.OrgLister)"
	}
	return fmt.Sprintf("capability %d", int(c))
}

// Capabilities are what a backend's store keeps beyond memories. The
// composition root that opens the store declares them, with the store's
// static type, so a declared capability is checked by the compiler; each
// consumer then requires what it uses when it is built (Require), so that a
// missing one stops the process at start instead of failing requests.
type Capabilities struct {
	Store     string // the store's name, for messages
	Relations memory.RelationStore
	Records   memory.RecordStore
	Orgs      memory.OrgLister
}

// Has reports whether c declares capability k.
func (c Capabilities) Has(k Capability) bool {
	switch k {
	case Relations:
		return c.Relations != nil
	case Records:
		return c.Records != nil
	case OrgListing:
		return c.Orgs != nil
	}
	return false
}

// Require returns nil when c declares every capability of need, else an
// error that names the consumer and each missing capability.
func (c Capabilities) Require(consumer string, need ...Capability) error {
	var missing []string
	for _, k := range need {
		if !c.Has(k) {
			missing = append(missing, k.String())
		}
	}
	if len(missing) == 0 {
		return nil
	}
	store := c.Store
	if store == "" {
		store = "this backend's"
	}
	return fmt.Errorf("wiring: %s needs a store that keeps %s; the %s store does not declare it",
		consumer, strings.Join(missing, " and "), store)
}
