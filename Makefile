# Every task a person does on this project is a target here.
GO       ?= go
PORT     ?= 8080
DATA_DIR ?= ./data
SIZES    ?= 10000
QUERIES  ?= 300

export PORT DATA_DIR

.PHONY: help run build test test-short vet fmt bench-latency bench-latency-opensearch opensearch-start opensearch-stop clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

run: ## start the local server on the embedded backend (PORT, DATA_DIR, API_KEYS)
	$(GO) run ./cmd/memoryd

build: ## build the local server and the Lambda binaries into bin/
	$(GO) build -o bin/memoryd ./cmd/memoryd
	GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -tags lambda.norpc -o bin/functions/api/bootstrap ./functions/api

test: vet ## run every test against real local servers (OpenSearch), race detector on
	scripts/test.sh

test-short: ## the tests that need no server and no build of memoryd
	$(GO) test -short -count=1 ./...

opensearch-start: ## start the local OpenSearch node (prints its URL)
	@scripts/opensearch.sh start

opensearch-stop: ## stop the local OpenSearch node
	@scripts/opensearch.sh stop

vet: ## go vet and a gofmt check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

fmt: ## format the code
	gofmt -w $$(git ls-files '*.go')

bench-latency: ## batch-create throughput and search latency per mode (SIZES=10000,100000)
	$(GO) run ./cmd/bench-latency -sizes $(SIZES) -queries $(QUERIES)

bench-latency-opensearch: ## the same against a local OpenSearch node (started and stopped here)
	@url=$$(scripts/opensearch.sh start) && trap 'scripts/opensearch.sh stop' EXIT && \
	  $(GO) run ./cmd/bench-latency -index opensearch -opensearch-url $$url -sizes $(SIZES) -queries $(QUERIES)

clean: ## remove build output (not the data directory)
	rm -rf bin
