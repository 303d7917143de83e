package emf

import (
	"bufio"
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestLines checks that each measurement is one valid EMF line: the
// metadata names each metric and dimension, and the line holds their
// values, as CloudWatch requires.
func TestLines(t *testing.T) {
	tests := []struct {
		name   string
		emit   func(m *Metrics)
		values map[string]float64
		dims   map[string]string
	}{
		{"request 200", func(m *Metrics) { m.Request("POST /v1/search", 200, 12500*time.Microsecond) },
			map[string]float64{MetricRequests: 1, MetricServerErrors: 0, MetricClientErrors: 0, MetricLatency: 12.5},
			map[string]string{"Route": "POST /v1/search"}},
		{"request 503", func(m *Metrics) { m.Request("POST /v1/messages", 503, time.Millisecond) },
			map[string]float64{MetricRequests: 1, MetricServerErrors: 1, MetricClientErrors: 0, MetricLatency: 1},
			map[string]string{"Route": "POST /v1/messages"}},
		{"request 409", func(m *Metrics) { m.Request("PATCH /v1/memories/{id}", 409, time.Millisecond) },
			map[string]float64{MetricRequests: 1, MetricServerErrors: 0, MetricClientErrors: 1, MetricLatency: 1},
			map[string]string{"Route": "PATCH /v1/memories/{id}"}},
		{"stage", func(m *Metrics) { m.Stage("rerank", 3*time.Millisecond) },
			map[string]float64{MetricStageLatency: 3}, map[string]string{"Stage": "rerank"}},
		{"pipeline", func(m *Metrics) { m.Pipeline("ingest", "failed", 2) },
			map[string]float64{MetricItems: 2}, map[string]string{"Pipeline": "ingest", "Outcome": "failed"}},
		{"rerank fallback", func(m *Metrics) { m.RerankFallback() }, map[string]float64{MetricRerankFallbacks: 1}, nil},
		{"queue depth", func(m *Metrics) { m.QueueDepth("extract", 7) },
			map[string]float64{MetricQueueDepth: 7}, map[string]string{"Queue": "extract"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			m := New(&buf, "agentmem-dev-api")
			m.now = func() time.Time { return time.UnixMilli(1700000000000) }
			tc.emit(m)
			sc := bufio.NewScanner(&buf)
			if !sc.Scan() {
				t.Fatal("no line")
			}
			var line map[string]any
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("not JSON: %v: %s", err, sc.Text())
			}
			if sc.Scan() {
				t.Fatalf("more than one line: %s", sc.Text())
			}
			var aws struct {
				Timestamp         int64
				CloudWatchMetrics []directive
			}
			raw, _ := json.Marshal(line["_aws"])
			if err := json.Unmarshal(raw, &aws); err != nil || aws.Timestamp != 1700000000000 || len(aws.CloudWatchMetrics) != 1 {
				t.Fatalf("metadata %s (%v)", raw, err)
			}
			d := aws.CloudWatchMetrics[0]
			if d.Namespace != Namespace || len(d.Metrics) != len(tc.values) {
				t.Fatalf("directive %+v", d)
			}
			for _, mt := range d.Metrics {
				v, ok := line[mt.Name].(float64)
				if !ok || v != tc.values[mt.Name] {
					t.Errorf("%s = %v, want %v", mt.Name, line[mt.Name], tc.values[mt.Name])
				}
			}
			for _, set := range d.Dimensions {
				for _, k := range set {
					if _, ok := line[k].(string); !ok {
						t.Errorf("dimension %s has no string value", k)
					}
				}
			}
			if line["Function"] != "agentmem-dev-api" {
				t.Errorf("Function = %v", line["Function"])
			}
			for k, v := range tc.dims {
				if line[k] != v {
					t.Errorf("%s = %v, want %s", k, line[k], v)
				}
			}
		})
	}
}
