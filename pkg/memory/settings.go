package memory

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Per-org settings are records (see RecordStore) of kind SettingsKind; the
// extraction settings are the record ExtractionSettingsID.
const (
	SettingsKind         = "settings"
	ExtractionSettingsID = "extraction"
)

// MaxInstructionsLen bounds ExtractionSettings.Instructions, in characters.
const MaxInstructionsLen = 2000

// FactCategories are the categories of extracted facts: the families of
// the attribute slots a fact sets ("diet" of "diet:gluten"), and
// CategoryOther for a fact that sets none. Package extract documents each
// family, with examples.
var FactCategories = []string{
	"name", "birthday", "age", "origin", "home", "employer", "occupation", "relationship",
	"allergy", "health", "diet", "education", "pet", "favorite", "preference", "interest",
	"activity", "use", "plan", "request", "state", CategoryOther,
}

// CategoryOther is the category of a fact that sets no known slot.
const CategoryOther = "other"

// FactCategory is the category of a fact that sets slot: the slot's
// family when it is one of FactCategories, else CategoryOther.
func FactCategory(slot string) string {
	if f := SlotFamily(slot); slices.Contains(FactCategories, f) {
		return f
	}
	return CategoryOther
}

// ExtractionSettings are the controls an org has over fact extraction,
// kept as the org's record (SettingsKind, ExtractionSettingsID) and set
// by an org-level key. The zero value changes nothing.
//
// A fact is kept when its kind is in KeepKinds (or KeepKinds is empty) and
// not in DropKinds, and its category (FactCategory) is in KeepCategories
// (or that is empty) and not in DropCategories. The filter applies to the
// output of every extractor. Instructions and Language are given to
// extractors that use a language model; the offline extractor cannot follow
// them (it reads English and writes its facts in English).
type ExtractionSettings struct {
	// Instructions are added to the language model's extraction prompt
	// (at most MaxInstructionsLen characters).
	Instructions string `json:"instructions,omitempty"`
	// KeepKinds and DropKinds are fact kinds (Kinds).
	KeepKinds []Kind `json:"keepKinds,omitempty"`
	DropKinds []Kind `json:"dropKinds,omitempty"`
	// KeepCategories and DropCategories are fact categories
	// (FactCategories).
	KeepCategories []string `json:"keepCategories,omitempty"`
	DropCategories []string `json:"dropCategories,omitempty"`
	// Language is the BCP 47 tag of the language facts are written in
	// ("en", "pt-BR"); empty for the language of the conversation.
	Language string `json:"language,omitempty"`
	// OrgFactsFromAgents, when set, overrides the deployment's choice of
	// whether a fact about the org itself, drawn from an agent-bound
	// conversation, is promoted to the org scope.
	OrgFactsFromAgents *bool `json:"orgFactsFromAgents,omitempty"`
	// DualWriteOrgFacts, when set, overrides the deployment's choice of
	// whether such a fact is written to the org scope and to the agent's
	// at once, the two linked by a relates_to relation (Lota's dual
	// writes); it implies the promotion OrgFactsFromAgents allows.
	DualWriteOrgFacts *bool `json:"dualWriteOrgFacts,omitempty"`
	// ProvidedKeys are the org's metadata keys read as structure by
	// knowledge extraction (issue 42), each with its role: added to the
	// service's keys, the org's role winning, ProvidedNone taking a
	// service key away. Keys are metadata keys (ValidMetadataKey),
	// compared in lower case; at most MaxProvidedKeys.
	ProvidedKeys map[string]ProvidedRole `json:"providedKeys,omitempty"`
}

// ProvidedRole is what the value of a metadata key read as structure is
// (see package knowledge, Provided).
type ProvidedRole string

// The provided roles.
const (
	ProvidedSender   ProvidedRole = "from"     // a person, the sender
	ProvidedReceiver ProvidedRole = "to"       // persons, the receivers (a list, or comma-separated)
	ProvidedSubject  ProvidedRole = "subject"  // a topic, and the name of the message
	ProvidedLocation ProvidedRole = "location" // a place entity
	// ProvidedProperty: a facet of the message named by the key.
	ProvidedProperty ProvidedRole = "property"
	// ProvidedNone: the key is not read as structure (an org's way to
	// take a key of the service's away).
	ProvidedNone ProvidedRole = "none"
)

// ProvidedRoles lists every valid ProvidedRole.
var ProvidedRoles = []ProvidedRole{ProvidedSender, ProvidedReceiver, ProvidedSubject, ProvidedLocation, ProvidedProperty, ProvidedNone}

// MaxProvidedKeys bounds ExtractionSettings.ProvidedKeys.
const MaxProvidedKeys = 32

// IsZero reports whether s changes nothing.
func (s ExtractionSettings) IsZero() bool {
	return s.Instructions == "" && len(s.KeepKinds) == 0 && len(s.DropKinds) == 0 && len(s.KeepCategories) == 0 &&
		len(s.DropCategories) == 0 && s.Language == "" && s.OrgFactsFromAgents == nil &&
		s.DualWriteOrgFacts == nil && len(s.ProvidedKeys) == 0
}

// languageRe is a BCP 47 tag in its common forms: a language of two or
// three letters, then subtags of one to eight letters or digits (script,
// region, variant, extension).
var languageRe = regexp.MustCompile(`^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$`)

// CanonicalLanguage checks that tag is a BCP 47 language tag and returns
// it in its canonical case ("pt-br" → "pt-BR", "zh-hant" → "zh-Hant");
// EINVALID naming field otherwise.
func CanonicalLanguage(field, tag string) (string, error) {
	if len(tag) > 35 || !languageRe.MatchString(tag) {
		return "", Errorf(EINVALID, `%s: %q is not a BCP 47 language tag (such as "en", "de" or "pt-BR")`, field, clipForError(tag))
	}
	parts := strings.Split(tag, "-")
	parts[0] = strings.ToLower(parts[0])
	for i := 1; i < len(parts); i++ {
		p := parts[i]
		switch {
		case len(parts[i-1]) == 1:
			// after a singleton (an extension or private use) case is free
			parts[i] = strings.ToLower(p)
		case len(p) == 2 && !isDigits(p):
			parts[i] = strings.ToUpper(p) // region
		case len(p) == 4 && !isDigits(p[:1]):
			parts[i] = strings.ToUpper(p[:1]) + strings.ToLower(p[1:]) // script
		default:
			parts[i] = strings.ToLower(p)
		}
	}
	return strings.Join(parts, "-"), nil
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// clipForError shortens a rejected value for an error message.
func clipForError(s string) string {
	if len(s) <= 40 {
		return s
	}
	for i := 40; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return ""
}

// Normalize validates s and puts it in canonical form: instructions
// trimmed, each list without repeats, the language tag in canonical case.
// EINVALID names the first field at fault: an unknown kind or category,
// a value both kept and dropped, instructions too long or with control
// characters, a language that is not a BCP 47 tag.
func (s *ExtractionSettings) Normalize() error {
	s.Instructions = strings.TrimSpace(s.Instructions)
	if !utf8.ValidString(s.Instructions) {
		return Errorf(EINVALID, "instructions: not valid UTF-8")
	}
	if n := utf8.RuneCountInString(s.Instructions); n > MaxInstructionsLen {
		return Errorf(EINVALID, "instructions: %d characters exceeds the limit of %d", n, MaxInstructionsLen)
	}
	for _, r := range s.Instructions {
		if (r < 0x20 && r != '\n' && r != '\t' && r != '\r') || r == 0x7f {
			return Errorf(EINVALID, "instructions: contains a control character")
		}
	}
	var err error
	if s.KeepKinds, err = enumList("keepKinds", s.KeepKinds, Kinds); err != nil {
		return err
	}
	if s.DropKinds, err = enumList("dropKinds", s.DropKinds, Kinds); err != nil {
		return err
	}
	if s.KeepCategories, err = enumList("keepCategories", s.KeepCategories, FactCategories); err != nil {
		return err
	}
	if s.DropCategories, err = enumList("dropCategories", s.DropCategories, FactCategories); err != nil {
		return err
	}
	if err := disjoint("dropKinds", s.DropKinds, "keepKinds", s.KeepKinds); err != nil {
		return err
	}
	if err := disjoint("dropCategories", s.DropCategories, "keepCategories", s.KeepCategories); err != nil {
		return err
	}
	if s.Language != "" {
		if s.Language, err = CanonicalLanguage("language", s.Language); err != nil {
			return err
		}
	}
	return s.normalizeProvidedKeys()
}

// normalizeProvidedKeys checks ProvidedKeys (valid metadata keys, known
// roles, at most MaxProvidedKeys) and lower-cases the keys; an empty map
// becomes nil.
func (s *ExtractionSettings) normalizeProvidedKeys() error {
	if len(s.ProvidedKeys) > MaxProvidedKeys {
		return Errorf(EINVALID, "providedKeys: %d keys exceed the limit of %d", len(s.ProvidedKeys), MaxProvidedKeys)
	}
	if len(s.ProvidedKeys) == 0 {
		s.ProvidedKeys = nil
		return nil
	}
	out := make(map[string]ProvidedRole, len(s.ProvidedKeys))
	for _, k := range slices.Sorted(maps.Keys(s.ProvidedKeys)) {
		role := s.ProvidedKeys[k]
		if !ValidMetadataKey(k) {
			return Errorf(EINVALID, "providedKeys.%s: keys are 1-%d of A-Z a-z 0-9 _ - . :", clipForError(k), MaxMetadataKeyLen)
		}
		if !slices.Contains(ProvidedRoles, role) {
			return Errorf(EINVALID, "providedKeys.%s: %q is not one of %s", k, clipForError(string(role)), joinEnum(ProvidedRoles))
		}
		low := strings.ToLower(k)
		if prev, ok := out[low]; ok && prev != role {
			return Errorf(EINVALID, "providedKeys.%s: the key is also given, in another case, another role", k)
		}
		out[low] = role
	}
	s.ProvidedKeys = out
	return nil
}

// enumList checks every value of vs against valid and drops repeats.
func enumList[T ~string](field string, vs, valid []T) ([]T, error) {
	var out []T
	for i, v := range vs {
		if !slices.Contains(valid, v) {
			return nil, Errorf(EINVALID, "%s[%d]: %q is not one of %s", field, i, clipForError(string(v)), joinEnum(valid))
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

func disjoint[T ~string](field string, vs []T, otherField string, others []T) error {
	for i, v := range vs {
		if slices.Contains(others, v) {
			return Errorf(EINVALID, "%s[%d]: %q is also in %s", field, i, v, otherField)
		}
	}
	return nil
}

// Keeps reports whether a fact of kind k and category cat passes the keep
// and drop lists of s.
func (s ExtractionSettings) Keeps(k Kind, cat string) bool {
	if len(s.KeepKinds) > 0 && !slices.Contains(s.KeepKinds, k) || slices.Contains(s.DropKinds, k) {
		return false
	}
	if len(s.KeepCategories) > 0 && !slices.Contains(s.KeepCategories, cat) || slices.Contains(s.DropCategories, cat) {
		return false
	}
	return true
}

// String summarizes s for logs, without the instructions' text.
func (s ExtractionSettings) String() string {
	return fmt.Sprintf("instructions=%d chars keepKinds=%v dropKinds=%v keepCategories=%v dropCategories=%v language=%q providedKeys=%v",
		utf8.RuneCountInString(s.Instructions), s.KeepKinds, s.DropKinds, s.KeepCategories, s.DropCategories, s.Language, s.ProvidedKeys)
}
