package ingest

import (
	"encoding/json"
	"testing"

	"github.com/agentmem/agentmem/pkg/memory"
)

// TestInvocationDecode: the ingest function tells an S3 notification from
// the scheduled rule's event by shape, and refuses anything else rather
// than taking it for an empty batch.
func TestInvocationDecode(t *testing.T) {
	tests := []struct {
		name, in  string
		s3, sched bool
		records   int
	}{
		{name: "s3 notification", in: `{"Records":[{"eventSource":"aws:s3","eventName":"ObjectCreated:Put","s3":{"bucket":{"name":"b"},"object":{"key":"acme/_org/a.md"}}}]}`, s3: true, records: 1},
		{name: "s3 test event, no records", in: `{"Records":[]}`, s3: true},
		{name: "scheduled event", in: `{"version":"0","id":"1","detail-type":"Scheduled Event","source":"aws.events","detail":{}}`, sched: true},
		{name: "both shapes", in: `{"detail-type":"Scheduled Event","Records":[]}`},
		{name: "neither", in: `{"source":"aws.events"}`},
		{name: "not an object", in: `[1,2]`},
		{name: "records of the wrong type", in: `{"Records":"x"}`},
	}
	for _, tc := range tests {
		var in Invocation
		err := json.Unmarshal([]byte(tc.in), &in)
		if !tc.s3 && !tc.sched {
			if err == nil {
				t.Errorf("%s: accepted as %+v", tc.name, in)
			} else if memory.ErrorCode(err) != memory.EINVALID && tc.name != "records of the wrong type" {
				t.Errorf("%s: %v, want EINVALID", tc.name, err)
			}
			continue
		}
		if err != nil || (in.S3 != nil) != tc.s3 || (in.Scheduled != nil) != tc.sched {
			t.Errorf("%s: %+v %v", tc.name, in, err)
			continue
		}
		if tc.s3 && len(in.S3.Records) != tc.records {
			t.Errorf("%s: %d records, want %d", tc.name, len(in.S3.Records), tc.records)
		}
		if tc.sched && in.Scheduled.DetailType != "Scheduled Event" {
			t.Errorf("%s: detail type %q", tc.name, in.Scheduled.DetailType)
		}
	}
}
