//go:build cgo

package local

// cgoEnabled: the offline model (ONNX Runtime, through cgo) can load.
const cgoEnabled = true
