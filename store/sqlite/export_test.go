package sqlite

// RefKeyChunk is refKeyChunk, for the tests of chunked reads.
const RefKeyChunk = refKeyChunk
