package memory

import (
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxNameLen is the longest org or agent name.
const MaxNameLen = 64

// ValidName reports whether s may name an org or an agent where names are
// part of a credential or a path: API keys (key=org/agent), document keys
// ({org}/{agent or _org}/{path}) and keys created with memctl. A name is 1
// to MaxNameLen characters of A-Z a-z 0-9 . _ -; it is never empty, nor
// "." or "..", which a path reads as the current or the parent directory.
func ValidName(s string) bool {
	if s == "" || len(s) > MaxNameLen || s == "." || s == ".." {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

// MaxDocumentNameLen is the longest document name, in bytes.
const MaxDocumentNameLen = 512

// ValidDocumentName checks a document's file name (field names it): a
// relative path of 1 to MaxDocumentNameLen bytes of UTF-8 with an
// extension, clean ("a/b.md", not "a//b.md" nor "./b.md"), without ".."
// and without control or format characters.
func ValidDocumentName(field, name string) error {
	if name == "" || len(name) > MaxDocumentNameLen || strings.Contains(name, "..") || path.Clean(name) != name ||
		strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") {
		return Errorf(EINVALID, "%s: a relative file name with an extension, at most %d bytes, is required (no \"..\")", field, MaxDocumentNameLen)
	}
	if !utf8.ValidString(name) {
		return Errorf(EINVALID, "%s: not valid UTF-8", field)
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) {
			return Errorf(EINVALID, "%s: control and format characters are not allowed (found U+%04X)", field, r)
		}
	}
	return nil
}
