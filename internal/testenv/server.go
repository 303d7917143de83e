package testenv

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Process is a server started by StartServer (memoryd, as the tests of
// its binary, the MCP server, the explorer and the clients run it).
type Process struct {
	Cmd *exec.Cmd
	URL string // http://127.0.0.1:PORT
	Log *LogBuffer
}

// LogBuffer collects a process's standard error; safe for one writer and
// readers.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// WriteString appends s.
func (b *LogBuffer) WriteString(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.WriteString(s)
}

// String returns what was written so far.
func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// StartServer runs bin with env and PORT set to a free loopback port, and
// returns once it logs "listening on"; after timeout it kills it and
// returns its log in the error.
func StartServer(bin string, env []string, timeout time.Duration) (*Process, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(bin)
	cmd.Env = append(env, fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, URL: fmt.Sprintf("http://127.0.0.1:%d", port), Log: &LogBuffer{}}
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			p.Log.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "listening on") {
				once = true
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
		return p, nil
	case <-time.After(timeout):
		cmd.Process.Kill()
		return nil, fmt.Errorf("%s did not start within %v:\n%s", bin, timeout, p.Log.String())
	}
}

// Stop sends SIGTERM and waits up to 20 s for the exit, killing the
// process after that; it returns the exit's error, or one saying it had to
// be killed.
func (p *Process) Stop() error {
	p.Cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- p.Cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
		p.Cmd.Process.Kill()
		return fmt.Errorf("%s did not stop on SIGTERM", p.Cmd.Path)
	}
}
