package memory

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
