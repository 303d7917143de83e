package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// machine describes where the benchmark ran.
type machine struct {
	CPU    string `json:"cpu"`
	Cores  int    `json:"cores"`
	OS     string `json:"os"`
	Kernel string `json:"kernel,omitempty"`
	Go     string `json:"go"`
	Python string `json:"python,omitempty"`
	// Libraries are the peers' versions, as the Python script found them.
	Libraries map[string]string `json:"libraries,omitempty"`
}

func describeMachine(ctx context.Context, python string) machine {
	m := machine{CPU: cpuModel(), Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, Go: runtime.Version()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	if python != "" {
		if out, err := exec.CommandContext(ctx, python, "-c", "import platform; print(platform.python_version())").Output(); err == nil {
			m.Python = strings.TrimSpace(string(out))
		}
	}
	return m
}

// String is the machine line above each table.
func (m machine) String() string {
	s := fmt.Sprintf("%s, %d cores, %s", m.CPU, m.Cores, m.OS)
	if m.Kernel != "" {
		s += " (kernel " + m.Kernel + ")"
	}
	s += ", " + m.Go
	if m.Python != "" {
		s += ", Python " + m.Python
	}
	return s
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if k, v, ok := bytes.Cut(line, []byte(":")); ok && strings.TrimSpace(string(k)) == "model name" {
			return strings.TrimSpace(string(v))
		}
	}
	return runtime.GOARCH
}

// loadAverages is /proc/loadavg's three load averages.
func loadAverages() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
