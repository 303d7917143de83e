package client_test

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// env is the server the tests talk to, with its keys: an org-level key of
// org A, keys bound to agents x and y of org A, an org-level key of org B,
// and a key of a second server whose rate limit is one request a second.
type env struct {
	url, org, agentX, agentY, otherOrg string
	limitedURL, limitedKey             string
}

// The keys the tests give memoryd (scripts/clients-test.sh uses the same).
const (
	keyOrgA    = "clients-test-org-a-key-0001"
	keyAgentX  = "clients-test-agent-x-key-001"
	keyAgentY  = "clients-test-agent-y-key-001"
	keyOrgB    = "clients-test-org-b-key-0001"
	keyLimited = "clients-test-limited-key-01"
)

var srv env

// TestMain runs the tests against AGENTMEM_URL (and AGENTMEM_LIMITED_URL)
// when scripts/clients-test.sh set them, else against memoryd built and
// started here on loopback, with a temporary data directory. -short skips
// the tests that need a server.
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if u := os.Getenv("AGENTMEM_URL"); u != "" {
		srv = env{url: u, org: keyOrgA, agentX: keyAgentX, agentY: keyAgentY, otherOrg: keyOrgB,
			limitedURL: os.Getenv("AGENTMEM_LIMITED_URL"), limitedKey: keyLimited}
		return m.Run()
	}
	if testing.Short() || os.Getenv("AGENTMEM_CLIENT_NO_SERVER") != "" {
		return m.Run()
	}
	tmp, err := os.MkdirTemp("", "agentmem-client-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "memoryd")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/memoryd")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building memoryd: %v\n%s", err, out)
		return 1
	}
	main, err := startMemoryd(bin, filepath.Join(tmp, "main"), fmt.Sprintf("%s=org-a,%s=org-a/x,%s=org-a/y,%s=org-b",
		keyOrgA, keyAgentX, keyAgentY, keyOrgB))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer main.stop()
	limited, err := startMemoryd(bin, filepath.Join(tmp, "limited"), keyLimited+"=org-l", "RATE_LIMIT=1", "RATE_LIMIT_BURST=2")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer limited.stop()
	srv = env{url: main.url, org: keyOrgA, agentX: keyAgentX, agentY: keyAgentY, otherOrg: keyOrgB,
		limitedURL: limited.url, limitedKey: keyLimited}
	return m.Run()
}

// needServer skips t when no server runs (-short).
func needServer(t *testing.T) {
	t.Helper()
	if srv.url == "" {
		t.Skip("needs memoryd (not started with -short)")
	}
}

type daemon struct {
	cmd *exec.Cmd
	url string
}

// startMemoryd runs bin on a free loopback port with the hashing embedder
// and keys, and waits until it listens.
func startMemoryd(bin, dataDir, keys string, extra ...string) (*daemon, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "DATA_DIR="+dataDir, "API_KEYS="+keys, fmt.Sprintf("PORT=%d", port),
		"ADDR=127.0.0.1", "BACKEND=", "INDEX=", "EMBEDDER=hash", "LLM_PROVIDER=none", "LOG_LEVEL=warn")
	cmd.Env = append(cmd.Env, extra...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			if !once && strings.Contains(sc.Text(), "listening on") {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		return nil, fmt.Errorf("memoryd did not start")
	}
	return &daemon{cmd: cmd, url: fmt.Sprintf("http://127.0.0.1:%d", port)}, nil
}

func (d *daemon) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { d.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		d.cmd.Process.Kill()
	}
}
