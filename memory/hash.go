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
// the scope (agent), the type and the content hash. A message is a turn in a
// conversation, so for messages the room and the speaker are part of the key:
// the same words said in two rooms are two memories, the same turn delivered
// twice is one. A fragment's key holds its document and position.
func DedupKey(m *Memory) string {
	parts := []string{m.AgentID, string(m.Type), m.ContentHash}
	if m.Type == TypeMessage {
		parts = append(parts, m.RoomID, m.EntityID)
	}
	if m.Type == TypeFragment {
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
