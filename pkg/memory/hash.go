package memory

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// NormalizeText is the form content is compared in for deduplication:
// Unicode NFKC, lower case, runs of white space folded to one space, trimmed.
func NormalizeText(s string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// ContentHash is the hex SHA-256 of the normalized text.
func ContentHash(text string) string {
	sum := sha256.Sum256([]byte(NormalizeText(text)))
	return hex.EncodeToString(sum[:])
}

// DedupKey is the key under which at most one memory may exist in an org:
// the scope (agent, and audience: see Visibility), the type and the
// content hash. A memory with an
// ExternalID (the client's key) is keyed by it instead, whatever its
// content. A message without one is an event, keyed by its own id: the
// same words said twice are two turns, so a retry must carry the same
// externalId (or Idempotency-Key) to be recognized. A fragment's key holds
// its document and position.
func DedupKey(m *Memory) string {
	// The scope is the agent and, for a room, world or user memory, its
	// audience: Alice's fact never deduplicates against Bob's (which would
	// drop hers and tell her that his exists). Shared and agent memories
	// keep the keys they always had.
	scope := m.AgentID
	if a := m.Audience(); a != "" {
		scope += "\x00" + a
	}
	parts := []string{scope, string(m.Type), m.ContentHash}
	switch {
	case m.ExternalID != "":
		// The client's own key: unique per scope, whatever the content.
		parts = []string{scope, "external", m.ExternalID}
	case m.Type == TypeMessage:
		// A conversation turn is an event, not a statement: saying "Yes"
		// twice is two turns. Without a client id, a message is unique.
		parts = []string{scope, string(m.Type), "id", m.ID}
	}
	if m.Type == TypeFragment && m.ExternalID == "" {
		// A fragment is a place in a document: identical text at two
		// positions is two fragments; the same delivery twice is one.
		pos := ""
		if m.Position != nil {
			pos = strconv.Itoa(*m.Position)
		}
		parts = append(parts, m.DocumentID, pos)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:16])
}
