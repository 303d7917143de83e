package local_test

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/embed/hashing"
	"github.com/agentmem/agentmem/pkg/embed/onnx"
	"github.com/agentmem/agentmem/pkg/memory"
	"github.com/agentmem/agentmem/pkg/wiring/local"
)

// TestNewEmbedder: the offline model when its files are there (opened in
// the background, its name known at once), the hashing embedder as the
// fallback of auto, and an error for onnx without the files.
func TestNewEmbedder(t *testing.T) {
	modelDir := os.Getenv("MODEL_DIR")
	hasModel := modelDir != "" && len(onnx.Missing(modelDir)) == 0
	if !hasModel && os.Getenv("REQUIRE_MODEL") == "1" {
		t.Fatalf("REQUIRE_MODEL=1 but the model is not in MODEL_DIR=%q", modelDir)
	}
	none := filepath.Join(t.TempDir(), "no-model")
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cases := []struct {
		name      string
		cfg       config.Embedder
		needModel bool
		model     string
		wantErr   bool
	}{
		{name: "hash", cfg: config.Embedder{Kind: config.EmbedderHash}, model: hashing.New(hashing.DefaultDimensions).Model()},
		{name: "auto without the model falls back", cfg: config.Embedder{Kind: config.EmbedderAuto, ModelDir: none},
			model: hashing.New(hashing.DefaultDimensions).Model()},
		{name: "onnx without the model fails", cfg: config.Embedder{Kind: config.EmbedderONNX, ModelDir: none}, wantErr: true},
		{name: "auto with the model", cfg: config.Embedder{Kind: config.EmbedderAuto, ModelDir: modelDir}, needModel: true, model: onnx.Model},
		{name: "onnx with the model", cfg: config.Embedder{Kind: config.EmbedderONNX, ModelDir: modelDir}, needModel: true, model: onnx.Model},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needModel && !hasModel {
				t.Skip("the offline model is not in MODEL_DIR")
			}
			e, err := local.NewEmbedder(tc.cfg, quiet)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("got %s, want an error", e.Model())
				}
				return
			}
			if err != nil || e.Model() != tc.model {
				t.Fatalf("%v %v, want %s", e, err, tc.model)
			}
			if c, ok := e.(io.Closer); ok {
				defer c.Close()
			}
			vs, err := e.Embed(context.Background(), []string{"the zeppelin museum opens at nine"}, memory.PurposeDocument)
			if err != nil || len(vs) != 1 || len(vs[0]) != e.Dimensions() {
				t.Fatalf("embed: %d vectors, %v", len(vs), err)
			}
		})
	}
}
