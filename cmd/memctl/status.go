package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// status prints a running server's /v1/healthz: whether it is degraded,
// and the progress of a re-embedding.
func status(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	url := fs.String("url", "http://127.0.0.1:"+port, "the server's base URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(*url, "/")+"/v1/healthz", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer res.Body.Close()
	var h struct {
		Status      string `json:"status"`
		Embedder    string `json:"embedder"`
		Degraded    string `json:"degraded"`
		Reembedding *struct {
			State       string `json:"state"`
			Done, Total int64
			Error       string `json:"error"`
		} `json:"reembedding"`
	}
	if err := json.NewDecoder(res.Body).Decode(&h); err != nil || res.StatusCode != http.StatusOK {
		return fmt.Errorf("status: %s answered %d (%v)", *url, res.StatusCode, err)
	}
	fmt.Printf("status:    %s\nembedder:  %s\n", h.Status, h.Embedder)
	if r := h.Reembedding; r != nil {
		pct := 100.0
		if r.Total > 0 {
			pct = 100 * float64(r.Done) / float64(r.Total)
		}
		fmt.Printf("re-embedding: %s, %d of %d memories (%.0f%%)\n", r.State, r.Done, r.Total, pct)
		if r.Error != "" {
			fmt.Printf("last error: %s\n", r.Error)
		}
	}
	if h.Degraded != "" {
		fmt.Printf("degraded:  %s\n", h.Degraded)
	}
	return nil
}
