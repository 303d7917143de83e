//go:build !cgo

package local

// cgoEnabled: built without cgo, the offline model cannot load.
const cgoEnabled = false
