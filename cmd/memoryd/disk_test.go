package main

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// MaxDiskFactor bounds the disk a memoryd data directory takes (SQLite
// and bolt, with what extraction and knowledge derive) per byte the
// bytes quota counts, on the write mix of TestDiskPerCountedByte; with
// PerMemoryDisk per memory, it is the documented bound of docs/limits.md:
// disk ≤ MaxDiskFactor × QUOTA_BYTES + PerMemoryDisk × QUOTA_MEMORIES.
const (
	MaxDiskFactor = 8
	PerMemoryDisk = 32 << 10
)

// dirBytes is the size of the files under dir.
func dirBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// diskMix is a write mix: sessions of turns posted as messages (so facts
// are extracted from them) and notes stored as memories, of text sizes in
// [min, max) bytes.
type diskMix struct {
	name                    string
	sessions, turns         int
	turnMin, turnMax        int
	notes, noteMin, noteMax int
}

// TestDiskPerCountedByte measures the disk of realistic write mixes
// against what the quotas count: conversations (turns posted as messages,
// so facts are extracted from them) and stored memories (facts and notes),
// with the knowledge derived from all of them, after a clean stop (the
// write-ahead log folded in). Each mix must stay within the documented
// bound (MaxDiskFactor, PerMemoryDisk).
func TestDiskPerCountedByte(t *testing.T) {
	bin := buildMemoryd(t)
	for _, mix := range []diskMix{
		{name: "chat: short turns, notes up to 3 KB", sessions: 40, turns: 30, turnMin: 40, turnMax: 600, notes: 800, noteMin: 100, noteMax: 3000},
		{name: "notes: long texts of 2 to 12 KB", sessions: 10, turns: 30, turnMin: 40, turnMax: 600, notes: 400, noteMin: 2000, noteMax: 12000},
	} {
		t.Run(mix.name, func(t *testing.T) { measureDisk(t, bin, mix) })
	}
}

func measureDisk(t *testing.T, bin string, mix diskMix) {
	const key = "disk-key-org-d-000000"
	dir := t.TempDir()
	env := append(os.Environ(), "DATA_DIR="+dir, "EMBEDDER=hash", "CONSOLIDATE_EVERY=0", "RATE_LIMIT=0", "CONCURRENCY_LIMIT=0",
		"LOG_LEVEL=warn", "API_KEYS="+key+"=org-d")
	srv := start(t, bin, env)
	words := strings.Fields("I we booked the flight to Lisbon on Friday my sister lives in Porto and loves jazz the invoice was paid late " +
		"because the card expired Ana works at Acme as an engineer and started learning guitar she is allergic to peanuts we met at the " +
		"conference in Berlin the hotel near the station was quiet and the refund arrived next week support promised a call")
	rng := rand.New(rand.NewPCG(5, 38))
	text := func(min, max int) string {
		n := min + rng.IntN(max-min)
		var b strings.Builder
		for b.Len() < n {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		return b.String() + "."
	}
	for s := 0; s < mix.sessions; s++ {
		var ms []map[string]any
		for i := 0; i < mix.turns; i++ {
			speaker := "Ana"
			if i%2 == 1 {
				speaker = "assistant"
			}
			ms = append(ms, map[string]any{"entityId": speaker, "content": map[string]any{"text": text(mix.turnMin, mix.turnMax)}})
		}
		if st, body := raw(t, srv.url, "POST", "/v1/messages", key, map[string]any{"sessionId": fmt.Sprintf("s%d", s), "messages": ms}); st != 202 {
			t.Fatalf("messages: %d %s", st, body)
		}
	}
	for b := 0; b < mix.notes; b += 50 {
		var ms []map[string]any
		for i := b; i < min(mix.notes, b+50); i++ {
			typ := "fact"
			if i%3 == 0 {
				typ = "custom"
			}
			ms = append(ms, map[string]any{"type": typ, "content": map[string]any{"text": text(mix.noteMin, mix.noteMax)}})
		}
		if st, body := raw(t, srv.url, "POST", "/v1/memories", key, map[string]any{"memories": ms}); st != 201 {
			t.Fatalf("memories: %d %s", st, body)
		}
	}
	// Let the extraction queue finish: the count of memories stops moving.
	last, still := -1, 0
	for deadline := time.Now().Add(120 * time.Second); still < 4 && time.Now().Before(deadline); {
		_, _, out := call(t, srv.url, "GET", "/v1/memories/count", key, "", nil)
		n := int(out["count"].(float64))
		if n == last {
			still++
		} else {
			last, still = n, 0
		}
		time.Sleep(500 * time.Millisecond)
	}
	st, _, out := call(t, srv.url, "GET", "/v1/admin/usage", key, "", nil)
	if st != 200 {
		t.Fatalf("usage: %d %v", st, out)
	}
	u := out["usage"].(map[string]any)
	counted, memories := int64(u["bytes"].(float64)), int64(u["memories"].(float64))
	srv.stop(t)
	disk := dirBytes(t, dir)
	index := dirBytes(t, filepath.Join(dir, "index"))
	t.Logf("%d memories, %d bytes counted; %d bytes on disk (SQLite %d, bolt %d): %.1f× the counted bytes, %.0f bytes a memory; bound %d",
		memories, counted, disk, disk-index, index, float64(disk)/float64(counted), float64(disk)/float64(memories),
		MaxDiskFactor*counted+PerMemoryDisk*memories)
	if counted == 0 || memories < int64(mix.sessions*mix.turns+mix.notes) || disk > MaxDiskFactor*counted+PerMemoryDisk*memories {
		t.Fatalf("disk %d > %d × %d counted + %d × %d memories: the documented bound no longer holds", disk, MaxDiskFactor, counted, PerMemoryDisk, memories)
	}
}
