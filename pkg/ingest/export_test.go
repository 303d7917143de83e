package ingest

// Test helpers shared with the external test package.
var (
	MakePDF  = makePDF
	MakeDOCX = makeDOCX
)
