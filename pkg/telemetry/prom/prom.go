// Package prom is the Prometheus adapter of the metrics port
// (telemetry.Metrics): memoryd serves it on GET /metrics.
//
// The series, all prefixed agentmem_:
//
//	http_requests_total{route,status}            requests by route pattern and status
//	http_request_duration_seconds{route}         request latency (histogram)
//	retrieval_stage_duration_seconds{stage}      retrieve, fuse, load, neighbours, rerank, expand, and list:<lists> for each retriever's call within retrieve (histogram)
//	pipeline_items_total{pipeline,outcome}       ingest, extract, consolidate by ok, failed, rejected, queued
//	rerank_fallbacks_total                       searches left in fused order by a failed rerank
//	queue_depth{queue}                           jobs waiting (the local extraction queue)
//
// and the Go runtime and process collectors.
package prom

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/agentmem/agentmem/pkg/telemetry"
)

const namespace = "agentmem"

// Metrics implements telemetry.Metrics on its own Prometheus registry.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	stages    *prometheus.HistogramVec
	pipelines *prometheus.CounterVec
	fallbacks prometheus.Counter
	depth     *prometheus.GaugeVec

	mu      sync.Mutex
	watched map[string]bool
}

var _ telemetry.Metrics = (*Metrics)(nil)

// New returns the metrics on a new registry, which also holds the Go
// runtime and process collectors.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "http_requests_total",
			Help: "HTTP requests by route pattern and status."}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "http_request_duration_seconds",
			Help: "HTTP request latency by route pattern.", Buckets: prometheus.ExponentialBuckets(0.001, 2, 15)}, []string{"route"}),
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: namespace, Name: "retrieval_stage_duration_seconds",
			Help: "Duration of each retrieval pipeline stage.", Buckets: prometheus.ExponentialBuckets(0.0001, 2, 17)}, []string{"stage"}),
		pipelines: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: namespace, Name: "pipeline_items_total",
			Help: "Items the ingest, extract and consolidate pipelines finished, by outcome."}, []string{"pipeline", "outcome"}),
		fallbacks: prometheus.NewCounter(prometheus.CounterOpts{Namespace: namespace, Name: "rerank_fallbacks_total",
			Help: "Searches whose rerank failed or timed out, answered in fused order."}),
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: namespace, Name: "queue_depth",
			Help: "Jobs waiting in a queue."}, []string{"queue"}),
		watched: map[string]bool{},
	}
	reg.MustRegister(m.requests, m.latency, m.stages, m.pipelines, m.fallbacks, m.depth,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// Request implements telemetry.Metrics.
func (m *Metrics) Request(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// Stage implements telemetry.Metrics.
func (m *Metrics) Stage(stage string, d time.Duration) {
	m.stages.WithLabelValues(stage).Observe(d.Seconds())
}

// Pipeline implements telemetry.Metrics.
func (m *Metrics) Pipeline(pipeline, outcome string, n int) {
	m.pipelines.WithLabelValues(pipeline, outcome).Add(float64(n))
}

// RerankFallback implements telemetry.Metrics.
func (m *Metrics) RerankFallback() { m.fallbacks.Inc() }

// QueueDepth implements telemetry.Metrics.
func (m *Metrics) QueueDepth(queue string, n int) { m.depth.WithLabelValues(queue).Set(float64(n)) }

// WatchQueue reads the depth of a queue from depth at each scrape, so that
// the gauge is never stale. Watching the same queue twice keeps the first.
func (m *Metrics) WatchQueue(queue string, depth func() int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.watched[queue] {
		return
	}
	m.watched[queue] = true
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: namespace, Name: "queue_depth_current",
		Help: "Jobs waiting in a queue, read at scrape time.", ConstLabels: prometheus.Labels{"queue": queue}},
		func() float64 { return float64(depth()) }))
}
