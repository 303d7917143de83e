package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// coldStart starts bin once under the fake Runtime API and, with an
// emulator, once more under it.
func coldStart(ctx context.Context, o options, bin string, env []string, event []byte) (timing, error) {
	t, err := viaFakeAPI(ctx, bin, env, event)
	if err != nil || o.rie == "" {
		return t, err
	}
	t.rie, err = viaRIE(ctx, o.rie, bin, env, event)
	return t, err
}

// report is the emulator's REPORT line: it starts the runtime at the first
// invocation and does not wait for its init, so its Init Duration is
// about 0 and its Duration runs from the start of the process to the
// answer.
var report = regexp.MustCompile(`REPORT RequestId: \S+\s+(?:Init Duration: [0-9.]+ ms\s+)?Duration: ([0-9.]+) ms`)

// viaRIE runs bin under the runtime interface emulator and returns the
// Duration of its REPORT line for the first invocation.
func viaRIE(ctx context.Context, rie, bin string, env []string, event []byte) (time.Duration, error) {
	addr, err := freeAddr()
	if err != nil {
		return 0, err
	}
	apiAddr, err := freeAddr() // the emulator's own Runtime API, not its default port 9001
	if err != nil {
		return 0, err
	}
	out := &syncBuffer{}
	cmd := exec.CommandContext(ctx, rie, "--runtime-interface-emulator-address", addr, "--runtime-api-address", apiAddr, bin)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer stop(cmd)
	if err := waitListening(addr, 10*time.Second); err != nil {
		return 0, fmt.Errorf("emulator: %w: %s", err, out.String())
	}
	resp, err := http.Post("http://"+addr+"/2015-03-31/functions/function/invocations", "application/json", bytes.NewReader(event))
	if err != nil {
		return 0, fmt.Errorf("%w (emulator: %s)", err, out.String())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("invoke: %d %s", resp.StatusCode, body)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := report.FindStringSubmatch(out.String()); m != nil {
			d, _ := strconv.ParseFloat(m[1], 64)
			return msDur(d), nil
		}
	}
	return 0, fmt.Errorf("no REPORT line: %s", out.String())
}

// viaFakeAPI serves the Lambda Runtime API's invocation protocol to bin:
// one event on its first GET .../invocation/next, its answer taken on
// POST .../response (or .../error, an error here but for the authorizer's
// Unauthorized, which is how it denies).
func viaFakeAPI(ctx context.Context, bin string, env []string, event []byte) (timing, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return timing{}, err
	}
	var (
		mu          sync.Mutex
		next, reply time.Time
		failure     string
		served      bool
		done        = make(chan struct{})
	)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /2018-06-01/runtime/invocation/next", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		first := !served
		if first {
			served, next = true, time.Now()
		}
		mu.Unlock()
		if !first { // one invocation per start: hold the runtime until the end
			<-r.Context().Done()
			return
		}
		w.Header().Set("Lambda-Runtime-Aws-Request-Id", "bench-1")
		w.Header().Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(time.Now().Add(5*time.Minute).UnixMilli(), 10))
		w.Header().Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:bench")
		w.Write(event)
	})
	answer := func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reply = time.Now()
		if r.PathValue("kind") != "response" && !bytes.Contains(b, []byte(`"errorMessage":"Unauthorized"`)) {
			failure = r.URL.Path + ": " + string(b)
		}
		mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
		close(done)
	}
	mux.HandleFunc("POST /2018-06-01/runtime/invocation/{id}/{kind}", answer)
	mux.HandleFunc("POST /2018-06-01/runtime/init/error", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		failure = "init error: " + string(b)
		mu.Unlock()
		close(done)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()

	out := &syncBuffer{}
	cmd := exec.CommandContext(ctx, bin)
	cmd.Env = append(env, "AWS_LAMBDA_RUNTIME_API="+ln.Addr().String())
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return timing{}, err
	}
	defer stop(cmd)
	select {
	case <-done:
	case <-time.After(time.Minute):
		return timing{}, fmt.Errorf("no answer in a minute: %s", out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if failure != "" {
		return timing{}, fmt.Errorf("%s (output: %s)", failure, out.String())
	}
	return timing{init: next.Sub(start), invoke: reply.Sub(next), wall: reply.Sub(start)}, nil
}

// stop kills the process group cmd started.
func stop(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func waitListening(addr string, limit time.Duration) error {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
	}
	return fmt.Errorf("%s not listening after %s", addr, limit)
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// syncBuffer is a bytes.Buffer for a process's output, read while it runs.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
