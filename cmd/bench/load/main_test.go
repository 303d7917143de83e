package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// buildMemoryd builds the real server binary.
func buildMemoryd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memoryd")
	if out, err := exec.Command("go", "build", "-o", bin, "../../memoryd").CombinedOutput(); err != nil {
		t.Fatalf("build memoryd: %v\n%s", err, out)
	}
	return bin
}

// TestSmoke runs the tool briefly against the real memoryd binary (three
// orgs, four clients) so that it cannot rot: every operation ran, and the
// check found no violation and no unexpected error. Nothing is asserted
// about timings.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs memoryd")
	}
	bin := buildMemoryd(t)
	var out, errs bytes.Buffer
	jsonFile := filepath.Join(t.TempDir(), "report.json")
	err := run(context.Background(), []string{"-memoryd", bin, "-clients", "4", "-duration", "3s", "-json", jsonFile}, &out, &errs)
	if err != nil {
		t.Fatalf("bench-load: %v\n%s\n%s", err, out.String(), errs.String())
	}
	var rep report
	js, _ := os.ReadFile(jsonFile)
	if err := json.Unmarshal(js, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, js)
	}
	if rep.ViolationCount != 0 || rep.UnexpectedErrors != 0 || rep.Checked == 0 {
		t.Fatalf("violations %d, unexpected errors %d, checked %d:\n%s", rep.ViolationCount, rep.UnexpectedErrors, rep.Checked, out.String())
	}
	ran := map[string]int{}
	for _, op := range rep.Operations {
		ran[op.Name] = op.Requests
	}
	for _, op := range []string{opCreate, opDupRace, opMsgRace, opPatch, opPatchRace, opDelete, opSearch, opCheck} {
		if ran[op] == 0 {
			t.Errorf("%s never ran: %v", op, ran)
		}
	}
	if !strings.Contains(out.String(), "| operation | requests | per s | p50 ms | p95 ms | p99 ms | statuses |") {
		t.Errorf("no table:\n%s", out.String())
	}
}

// TestCheckFindsViolations checks that the check bites: against the real
// server, a memory the client believes accepted but that is absent is a
// loss, one whose content differs from the last patch a lost update, and
// one believed deleted that is still there a failed delete. (The
// consistent room is checked with two orgs' keys, so the isolation check
// runs too, and finds nothing.)
func TestCheckFindsViolations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs memoryd")
	}
	d, err := startMemoryd(context.Background(), buildMemoryd(t), 2, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	l := newLoad(options{url: d.url, keys: d.keys, clients: 1, duration: time.Second})
	c := &client{l: l, n: 0, key: d.keys[0], room: "check-room", rng: rand.New(rand.NewPCG(1, 2))}
	ctx := context.Background()
	for range 3 {
		c.create(ctx)
	}
	if len(c.live) != 3 {
		t.Fatalf("created %d", len(c.live))
	}
	if got := l.checkClient(ctx, c); got != 3 || l.nviol != 0 {
		t.Fatalf("a consistent room: %d checked, violations %v", got, l.viol)
	}
	tests := []struct {
		name   string
		tamper func()
		want   string
	}{
		{"lost", func() {
			c.mems = append(c.mems, &tracked{id: "0123456789abcdef0123456789abcdef", key: c.key, text: "x", version: 1})
		}, "lost: memory"},
		{"lost update", func() { c.mems[0].text = "what the last patch wrote" }, "lost update: memory"},
		{"delete not done", func() { c.mems[1].deleted = true }, "deleted memory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l.viol, l.nviol = nil, 0
			tc.tamper()
			l.checkClient(ctx, c)
			found := false
			for _, v := range l.viol {
				found = found || strings.Contains(v, tc.want)
			}
			if !found {
				t.Fatalf("no %q violation among %v", tc.want, l.viol)
			}
		})
	}
}
