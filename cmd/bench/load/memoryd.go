package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// daemon is a memoryd started for the run.
type daemon struct {
	cmd  *exec.Cmd
	dir  string
	url  string
	keys []string
	done chan error
}

// startMemoryd starts bin on a free loopback port with a temporary data
// directory and one key per org, and waits until it answers.
func startMemoryd(ctx context.Context, bin string, orgs int, stderr io.Writer) (*daemon, error) {
	dir, err := os.MkdirTemp("", "bench-load-")
	if err != nil {
		return nil, err
	}
	d := &daemon{dir: dir, done: make(chan error, 1)}
	var pairs []string
	for i := range orgs {
		var b [12]byte
		rand.Read(b[:])
		k := "load-" + hex.EncodeToString(b[:])
		d.keys = append(d.keys, k)
		pairs = append(pairs, fmt.Sprintf("%s=load-org-%d", k, i+1))
	}
	env := append(os.Environ(), "DATA_DIR="+dir, "PORT=0", "ADDR=127.0.0.1", "API_KEYS="+strings.Join(pairs, ","), "LOG_LEVEL=warn")
	if os.Getenv("MODEL_DIR") == "" && os.Getenv("EMBEDDER") == "" {
		env = append(env, "EMBEDDER=hash") // light: the machine's cores go to the load, not the model
	}
	d.cmd = exec.Command(bin)
	d.cmd.Env = env
	out, err := d.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := d.cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if u, ok := strings.CutPrefix(line, "memoryd listening on "); ok {
				urlc <- strings.TrimSpace(u)
				continue
			}
			if strings.Contains(line, `"level":"ERROR"`) || strings.HasPrefix(line, "memoryd:") {
				fmt.Fprintln(stderr, "memoryd:", line)
			}
		}
	}()
	go func() { d.done <- d.cmd.Wait() }()
	select {
	case d.url = <-urlc:
	case err := <-d.done:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("memoryd exited at start: %v", err)
	case <-time.After(2 * time.Minute):
		d.stop()
		return nil, fmt.Errorf("memoryd did not start within 2 minutes")
	case <-ctx.Done():
		d.stop()
		return nil, ctx.Err()
	}
	for i := 0; i < 100; i++ {
		if res, err := http.Get(d.url + "/v1/healthz"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return d, nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	d.stop()
	return nil, fmt.Errorf("memoryd at %s does not answer /v1/healthz", d.url)
}

// stop ends memoryd (SIGTERM, then SIGKILL after 20 s) and removes its data.
func (d *daemon) stop() {
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		d.cmd.Process.Kill()
		<-d.done
	}
	os.RemoveAll(d.dir)
}
