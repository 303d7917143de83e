package related_test

import (
	"context"
	"testing"

	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/knowledge"
	"github.com/agentmem/agentmem/pkg/knowledge/extractor/offline"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/service"
	"github.com/agentmem/agentmem/pkg/store/sqlite"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

var ctx = context.Background()

// open opens a local backend (SQLite, the bolt index, the hashing
// embedder) in a temporary directory, closed when the test ends.
func open(t *testing.T) *local.Backend {
	t.Helper()
	b, err := local.Open(ctx, t.TempDir(), hashing.New(64), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// say is a message of speaker in room "r" at the given time.
func say(speaker, text string, at int64) service.NewMemory {
	return service.NewMemory{Type: memory.TypeMessage, EntityID: speaker, RoomID: "r", Content: memory.Content{Text: text}, CreatedAt: at}
}

// offlineKnowledge is a SQLite store in a temporary directory and the
// knowledge service over it with the offline extractor.
func offlineKnowledge(b testing.TB) (*sqlite.Store, *knowledge.Service) {
	b.Helper()
	st, err := local.OpenStore(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st, &knowledge.Service{Store: st, Terms: st, Extractor: offline.New(offline.Options{})}
}
