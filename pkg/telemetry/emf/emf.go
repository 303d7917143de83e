// Package emf is the CloudWatch embedded metric format adapter of the
// metrics port (telemetry.Metrics), for the Lambdas: each measurement is
// one JSON line on standard output, which CloudWatch Logs turns into
// metrics, with no agent and no API call
// (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
//
// The metrics, in namespace Namespace, each with the dimension Function
// (the Lambda's name) and:
//
//	Requests, ClientErrors, ServerErrors (Count), Latency (Milliseconds)
//	    by [Function] and [Function, Route]; the status is a property
//	StageLatency (Milliseconds)             by [Function, Stage]
//	Items (Count)                           by [Function, Pipeline, Outcome]
//	RerankFallbacks (Count)                 by [Function]
//	QueueDepth (Count)                      by [Function, Queue]
package emf

import (
	"encoding/json"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/agentmem/agentmem/pkg/telemetry"
)

// Namespace is the CloudWatch namespace of every metric.
const Namespace = "agentmem"

// The metric names, which the CDK app's alarms use.
const (
	MetricRequests        = "Requests"
	MetricClientErrors    = "ClientErrors"
	MetricServerErrors    = "ServerErrors"
	MetricLatency         = "Latency"
	MetricStageLatency    = "StageLatency"
	MetricItems           = "Items"
	MetricRerankFallbacks = "RerankFallbacks"
	MetricQueueDepth      = "QueueDepth"
)

// Metrics implements telemetry.Metrics by writing EMF lines to a writer.
type Metrics struct {
	w        io.Writer
	function string
	now      func() time.Time
	mu       sync.Mutex
}

var _ telemetry.Metrics = (*Metrics)(nil)

// New returns metrics that write to w (standard output in a Lambda) with
// the dimension Function set to function (lambdacontext.FunctionName).
func New(w io.Writer, function string) *Metrics {
	return &Metrics{w: w, function: function, now: time.Now}
}

type metric struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

type directive struct {
	Namespace  string     `json:"Namespace"`
	Dimensions [][]string `json:"Dimensions"`
	Metrics    []metric   `json:"Metrics"`
}

type meta struct {
	Timestamp         int64       `json:"Timestamp"`
	CloudWatchMetrics []directive `json:"CloudWatchMetrics"`
}

// emit writes one line: the metadata, the dimensions' and properties'
// values, and the metrics' values.
func (m *Metrics) emit(dims [][]string, metrics []metric, fields map[string]any) {
	fields["_aws"] = meta{Timestamp: m.now().UnixMilli(), CloudWatchMetrics: []directive{{Namespace: Namespace, Dimensions: dims, Metrics: metrics}}}
	fields["Function"] = m.function
	line, err := json.Marshal(fields)
	if err != nil {
		return // only numbers and strings: cannot happen
	}
	line = append(line, '\n')
	m.mu.Lock()
	defer m.mu.Unlock()
	m.w.Write(line) // one write per line, so lines never interleave
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Request implements telemetry.Metrics.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	m.emit([][]string{{"Function"}, {"Function", "Route"}},
		[]metric{{MetricRequests, "Count"}, {MetricClientErrors, "Count"}, {MetricServerErrors, "Count"}, {MetricLatency, "Milliseconds"}},
		map[string]any{"Route": route, "Status": strconv.Itoa(status), MetricRequests: 1,
			MetricClientErrors: b2i(status >= 400 && status < 500), MetricServerErrors: b2i(status >= 500), MetricLatency: ms(d)})
}

// Stage implements telemetry.Metrics.
func (m *Metrics) Stage(stage string, d time.Duration) {
	m.emit([][]string{{"Function", "Stage"}}, []metric{{MetricStageLatency, "Milliseconds"}},
		map[string]any{"Stage": stage, MetricStageLatency: ms(d)})
}

// Pipeline implements telemetry.Metrics.
func (m *Metrics) Pipeline(pipeline, outcome string, n int) {
	m.emit([][]string{{"Function", "Pipeline", "Outcome"}}, []metric{{MetricItems, "Count"}},
		map[string]any{"Pipeline": pipeline, "Outcome": outcome, MetricItems: n})
}

// RerankFallback implements telemetry.Metrics.
func (m *Metrics) RerankFallback() {
	m.emit([][]string{{"Function"}}, []metric{{MetricRerankFallbacks, "Count"}}, map[string]any{MetricRerankFallbacks: 1})
}

// QueueDepth implements telemetry.Metrics.
func (m *Metrics) QueueDepth(queue string, n int) {
	m.emit([][]string{{"Function", "Queue"}}, []metric{{MetricQueueDepth, "Count"}}, map[string]any{"Queue": queue, MetricQueueDepth: n})
}
