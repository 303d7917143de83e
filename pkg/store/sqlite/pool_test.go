package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/pkg/store/sqlite"
)

// TestReadersStayOpen: connections that read at once stay open once
// idle, with their page caches, and the next burst of reads reuses them;
// database/sql's default kept two and closed the rest after every burst.
func TestReadersStayOpen(t *testing.T) {
	for _, n := range []int{2, 5, sqlite.Readers} {
		t.Run(fmt.Sprintf("%d readers", n), func(t *testing.T) {
			ctx := context.Background()
			s := open(t, filepath.Join(t.TempDir(), "memories.db"))
			defer s.Close()
			for burst := range 3 {
				release, err := s.HoldReaders(ctx, n)
				if err != nil {
					t.Fatal(err)
				}
				release()
				st := s.ReaderStats()
				if st.MaxIdleClosed != 0 || st.Idle < n {
					t.Fatalf("%d readers, burst %d: %d idle, %d closed for want of idle room; want %d idle, none closed",
						n, burst, st.Idle, st.MaxIdleClosed, n)
				}
				if st.OpenConnections > sqlite.Readers {
					t.Fatalf("%d connections open, the bound is %d", st.OpenConnections, sqlite.Readers)
				}
			}
		})
	}
}
