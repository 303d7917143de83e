//go:build !linux

package bolt

import bbolt "go.etcd.io/bbolt"

// release is Linux's (release_linux.go); elsewhere the pages read through
// bbolt's map stay resident until the kernel needs them.
func release(*bbolt.Tx) {}
