package memory

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestExtractionSettingsNormalize(t *testing.T) {
	tests := []struct {
		name string
		in   ExtractionSettings
		want ExtractionSettings // after Normalize, when err is ""
		err  string
	}{
		{"zero", ExtractionSettings{}, ExtractionSettings{}, ""},
		{"trimmed and canonical",
			ExtractionSettings{Instructions: "  Keep dietary facts.\n", KeepKinds: []Kind{KindFact, KindFact, KindPreference},
				DropCategories: []string{"health", "allergy", "health"}, Language: "pt-br"},
			ExtractionSettings{Instructions: "Keep dietary facts.", KeepKinds: []Kind{KindFact, KindPreference},
				DropCategories: []string{"health", "allergy"}, Language: "pt-BR"}, ""},
		{"script and region", ExtractionSettings{Language: "ZH-hant-tw"}, ExtractionSettings{Language: "zh-Hant-TW"}, ""},
		{"numeric region", ExtractionSettings{Language: "es-419"}, ExtractionSettings{Language: "es-419"}, ""},
		{"private use", ExtractionSettings{Language: "en-x-Legal"}, ExtractionSettings{Language: "en-x-legal"}, ""},
		{"other is a category", ExtractionSettings{KeepCategories: []string{"other", "plan"}}, ExtractionSettings{KeepCategories: []string{"other", "plan"}}, ""},
		{"unknown kind", ExtractionSettings{DropKinds: []Kind{KindFact, "opinion"}}, ExtractionSettings{}, `dropKinds[1]: "opinion" is not one of fact, preference`},
		{"unknown keep kind", ExtractionSettings{KeepKinds: []Kind{"Fact"}}, ExtractionSettings{}, `keepKinds[0]: "Fact" is not one of`},
		{"unknown category", ExtractionSettings{KeepCategories: []string{"hobby"}}, ExtractionSettings{}, `keepCategories[0]: "hobby" is not one of name, birthday`},
		{"unknown drop category", ExtractionSettings{DropCategories: []string{"diet", "politics"}}, ExtractionSettings{}, `dropCategories[1]: "politics"`},
		{"kept and dropped kind", ExtractionSettings{KeepKinds: []Kind{KindFact}, DropKinds: []Kind{KindFact}}, ExtractionSettings{}, `dropKinds[0]: "fact" is also in keepKinds`},
		{"kept and dropped category", ExtractionSettings{KeepCategories: []string{"diet"}, DropCategories: []string{"plan", "diet"}}, ExtractionSettings{}, `dropCategories[1]: "diet" is also in keepCategories`},
		{"language name", ExtractionSettings{Language: "english"}, ExtractionSettings{}, `language: "english" is not a BCP 47 language tag`},
		{"language with underscore", ExtractionSettings{Language: "pt_BR"}, ExtractionSettings{}, "language: "},
		{"language subtag too long", ExtractionSettings{Language: "en-abcdefghi"}, ExtractionSettings{}, "language: "},
		{"language with space", ExtractionSettings{Language: "en "}, ExtractionSettings{}, "language: "},
		{"instructions too long", ExtractionSettings{Instructions: strings.Repeat("é", MaxInstructionsLen+1)}, ExtractionSettings{}, "instructions: 2001 characters exceeds the limit of 2000"},
		{"instructions at the limit", ExtractionSettings{Instructions: strings.Repeat("é", MaxInstructionsLen)}, ExtractionSettings{Instructions: strings.Repeat("é", MaxInstructionsLen)}, ""},
		{"instructions with a control character", ExtractionSettings{Instructions: "keep\x00this"}, ExtractionSettings{}, "instructions: contains a control character"},
		{"provided keys lower-cased", ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{"Venue": ProvidedLocation, "title": ProvidedNone, "x.y": ProvidedProperty}},
			ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{"venue": ProvidedLocation, "title": ProvidedNone, "x.y": ProvidedProperty}}, ""},
		{"no provided keys", ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{}}, ExtractionSettings{}, ""},
		{"provided key role unknown", ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{"venue": "place"}}, ExtractionSettings{},
			`providedKeys.venue: "place" is not one of from, to, subject, location, property, none`},
		{"provided key invalid", ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{"the venue": ProvidedLocation}}, ExtractionSettings{}, "providedKeys.the venue: keys are 1-64 of"},
		{"provided key twice", ExtractionSettings{ProvidedKeys: map[string]ProvidedRole{"Venue": ProvidedLocation, "venue": ProvidedSender}}, ExtractionSettings{}, "providedKeys.venue: the key is also given"},
		{"too many provided keys", ExtractionSettings{ProvidedKeys: manyKeys(MaxProvidedKeys + 1)}, ExtractionSettings{}, "providedKeys: 33 keys exceed the limit of 32"},
		{"provided keys at the limit", ExtractionSettings{ProvidedKeys: manyKeys(MaxProvidedKeys)}, ExtractionSettings{ProvidedKeys: manyKeys(MaxProvidedKeys)}, ""},
		{"instructions not UTF-8", ExtractionSettings{Instructions: "keep \xff"}, ExtractionSettings{}, "instructions: not valid UTF-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.in
			err := s.Normalize()
			if tc.err != "" {
				if ErrorCode(err) != EINVALID || !strings.Contains(ErrorMessage(err), tc.err) {
					t.Fatalf("got %v, want EINVALID with %q", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(s, tc.want) {
				t.Fatalf("got %+v %v, want %+v", s, err, tc.want)
			}
		})
	}
}

// manyKeys returns n provided keys k0, k1... of role property.
func manyKeys(n int) map[string]ProvidedRole {
	out := map[string]ProvidedRole{}
	for i := range n {
		out["k"+strconv.Itoa(i)] = ProvidedProperty
	}
	return out
}

func TestExtractionSettingsKeeps(t *testing.T) {
	tests := []struct {
		name string
		s    ExtractionSettings
		kind Kind
		cat  string
		want bool
	}{
		{"no rules", ExtractionSettings{}, KindFact, "health", true},
		{"dropped category", ExtractionSettings{DropCategories: []string{"health"}}, KindFact, "health", false},
		{"another category", ExtractionSettings{DropCategories: []string{"health"}}, KindFact, "allergy", true},
		{"dropped kind", ExtractionSettings{DropKinds: []Kind{KindPreference}}, KindPreference, "diet", false},
		{"kept kind", ExtractionSettings{KeepKinds: []Kind{KindPreference}}, KindPreference, "diet", true},
		{"kind not kept", ExtractionSettings{KeepKinds: []Kind{KindPreference}}, KindFact, "diet", false},
		{"category not kept", ExtractionSettings{KeepCategories: []string{"diet", "allergy"}}, KindFact, CategoryOther, false},
		{"other kept", ExtractionSettings{KeepCategories: []string{CategoryOther}}, KindFact, CategoryOther, true},
		{"kind kept, category dropped", ExtractionSettings{KeepKinds: []Kind{KindFact}, DropCategories: []string{"plan"}}, KindFact, "plan", false},
	}
	for _, tc := range tests {
		if got := tc.s.Keeps(tc.kind, tc.cat); got != tc.want {
			t.Errorf("%s: Keeps(%s, %s) = %v, want %v", tc.name, tc.kind, tc.cat, got, tc.want)
		}
	}
}

func TestFactCategory(t *testing.T) {
	for slot, want := range map[string]string{
		"diet:gluten": "diet", "birthday": "birthday", "relationship:manager": "relationship",
		"": CategoryOther, "mood:happy": CategoryOther, "other": CategoryOther,
	} {
		if got := FactCategory(slot); got != want {
			t.Errorf("FactCategory(%q) = %q, want %q", slot, got, want)
		}
	}
}
