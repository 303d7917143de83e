package memory

import (
	"context"
	"encoding/json"
)

// Record is a small JSON document an org keeps beside its memories:
// document ingestion status, job checkpoints. Version increases by one on
// every put.
type Record struct {
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Version int64           `json:"version"`
	Value   json.RawMessage `json:"value"`
}

// RecordCreateOnly is the ifVersion of RecordStore.PutRecord that creates
// a record only where there is none: the record version before the first.
const RecordCreateOnly int64 = -1

// RecordStore keeps records per org and kind.
type RecordStore interface {
	// PutRecord stores value under (org, kind, id). With ifVersion 0 it
	// creates or replaces unconditionally; with RecordCreateOnly it creates
	// only when there is no such record (ECONFLICT otherwise); otherwise the
	// stored version must equal ifVersion (ECONFLICT). It returns the new
	// version.
	PutRecord(ctx context.Context, org, kind, id string, value any, ifVersion int64) (int64, error)
	// GetRecord reads a record into out and returns its version; ENOTFOUND.
	GetRecord(ctx context.Context, org, kind, id string, out any) (int64, error)
	// ListRecords returns up to limit records of a kind in id order, after
	// the id after ("" from the start), and the id to continue from ("" at
	// the end).
	ListRecords(ctx context.Context, org, kind, after string, limit int) ([]Record, string, error)
	// DeleteRecord removes a record; absent records are not an error.
	DeleteRecord(ctx context.Context, org, kind, id string) error
}

// RecordPut is one record of RecordBatcher.PutRecords.
type RecordPut struct {
	ID    string
	Value any
}

// RecordBatcher is what a RecordStore may add to store many records of one
// kind at once: PutRecord with ifVersion 0 for each, in one write. A
// vocabulary of a hundred thousand term vectors was a hundred thousand
// transactions, each with its own fsync.
type RecordBatcher interface {
	PutRecords(ctx context.Context, org, kind string, recs []RecordPut) error
}
