// Command invoke runs a Lambda handler locally, once, on a sample event,
// against the backend of the environment (the embedded one by default):
//
//	go run ./cmd/invoke -fn ingest -event events/s3-put.json
//	go run ./cmd/invoke -fn api -event events/apigw-search.json
//
// For ingest, objects are read from -blobs (default events/blobs), laid out
// as their keys.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"

	"github.com/agentmem/agentmem/internal/config"
	"github.com/agentmem/agentmem/pkg/pipeline/ingest"
	"github.com/agentmem/agentmem/pkg/transport/httpapi"
	"github.com/agentmem/agentmem/pkg/wiring/server"
	"github.com/aws/aws-lambda-go/events"
)

func main() {
	fn := flag.String("fn", "", "the handler: api, ingest, extract or consolidate")
	event := flag.String("event", "", "the event payload (JSON file)")
	blobs := flag.String("blobs", "events/blobs", "directory holding the objects ingest reads, by key")
	flag.Parse()
	if err := run(*fn, *event, *blobs); err != nil {
		fmt.Fprintln(os.Stderr, "invoke:", err)
		os.Exit(1)
	}
}

func run(fn, eventFile, blobs string) error {
	raw, err := os.ReadFile(eventFile)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg, err := config.FromEnv()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	b, err := server.Open(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer b.Close()
	var out any
	switch fn {
	case "api":
		var ev events.APIGatewayProxyRequest
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("%s is not an API Gateway proxy event: %w", eventFile, err)
		}
		out, err = httpapi.New(b.Service, nil, log, httpapi.WithDocuments(b.Documents), httpapi.WithKnowledge(b.Knowledge)).HandleAPIGateway(ctx, ev)
	case "extract":
		var ev events.SQSEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("%s is not an SQS event: %w", eventFile, err)
		}
		out, err = b.Facts.HandleSQS(ctx, ev)
	case "consolidate":
		var ev events.EventBridgeEvent
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("%s is not an EventBridge event: %w", eventFile, err)
		}
		out, err = b.Consolidation.RunAll(ctx)
	case "ingest":
		var ev events.S3Event
		if err := json.Unmarshal(raw, &ev); err != nil {
			return fmt.Errorf("%s is not an S3 event: %w", eventFile, err)
		}
		out, err = b.Documents.HandleS3(ctx, ev, ingest.FileFetch(blobs))
	default:
		return fmt.Errorf("-fn: %q is not api, ingest, extract or consolidate", fn)
	}
	js, _ := json.MarshalIndent(out, "", "  ")
	fmt.Println(string(js))
	return err
}
