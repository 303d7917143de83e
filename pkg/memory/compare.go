package memory

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Relational property queries: a property leaf compares a facet's value
// with an operand (eq, ne, lt, lte, gt, gte, in). Values are typed when they
// are indexed (ValueTypeOf): a number ("30", "30 years", "1,250.5"), a date
// ("2024-03-05", "2024-03", "march 5, 2024", RFC 3339) or a string. A
// comparison compares values of the operand's type only: "age gt 30" sees
// the ages that are numbers, "name lt m" the names that are strings.
//
// The comparison is pushed down into the stores: ValueTypeOf's key sorts,
// bytewise, as the values of its type compare, so that an adapter can keep
// typed postings beside the plain ones and answer every comparison with
// one or two key ranges of one partition (package termkit holds how).

// CompareOp is the comparison of a property lookup.
type CompareOp string

// The comparison operators. OpExact, the zero value, is the untyped
// equality of normalized strings that property leaves always had.
const (
	OpExact CompareOp = ""
	OpEq    CompareOp = "eq"
	OpNe    CompareOp = "ne"
	OpLt    CompareOp = "lt"
	OpLte   CompareOp = "lte"
	OpGt    CompareOp = "gt"
	OpGte   CompareOp = "gte"
	OpIn    CompareOp = "in"
)

// CompareOps lists the explicit comparison operators.
var CompareOps = []CompareOp{OpEq, OpNe, OpLt, OpLte, OpGt, OpGte, OpIn}

// ValidCompareOp checks op against CompareOps ("" is valid: OpExact).
func ValidCompareOp(op CompareOp) error {
	if op == OpExact {
		return nil
	}
	for _, o := range CompareOps {
		if o == op {
			return nil
		}
	}
	return Errorf(EINVALID, "op: %q is not one of %s", op, joinEnum(CompareOps))
}

// MaxInValues is the most operands of an "in" comparison.
const MaxInValues = 64

// ValueType is the type a property value is compared as.
type ValueType string

// The value types.
const (
	ValueNumber ValueType = "number"
	ValueDate   ValueType = "date"
	ValueString ValueType = "string"
)

// dateLayouts are the date forms a value is typed as a date by, tried in
// order on the upper-cased value (time.Parse matches month names in any
// case).
var dateLayouts = []string{
	time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006/01/02",
	"January 2, 2006", "January 2 2006", "2 January 2006", "January 2006", "Jan 2, 2006", "2 Jan 2006", "Jan 2006",
}

// ValueTypeOf types a normalized value, and returns its key: a string that
// sorts, bytewise, as values of that type compare. A number is its amount,
// its first word ("30 years" is 30, "1,250" is 1250); a date is its first
// instant, in UTC when it names no zone. Both have keys of 16 hex digits; a
// string is its own key.
func ValueTypeOf(v string) (ValueType, string) {
	if f, ok := parseNumber(v); ok {
		return ValueNumber, sortableFloat(f)
	}
	if t, ok := parseDate(v); ok {
		return ValueDate, sortableFloat(float64(t.UnixMilli()))
	}
	return ValueString, v
}

func parseNumber(v string) (float64, bool) {
	words := strings.Fields(v)
	if len(words) == 0 || len(words) > 3 {
		return 0, false
	}
	w := strings.ReplaceAll(words[0], ",", "")
	f, err := strconv.ParseFloat(w, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || strings.ContainsAny(w, "xXpP_") {
		return 0, false
	}
	for _, u := range words[1:] { // units are words, not more numbers
		if _, err := strconv.ParseFloat(u, 64); err == nil {
			return 0, false
		}
	}
	return f, true
}

func parseDate(v string) (time.Time, bool) {
	u := strings.ToUpper(v)
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, u); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// sortableFloat renders f as 16 hex digits that sort as the floats do.
func sortableFloat(f float64) string {
	if f == 0 {
		f = 0 // -0 sorts as 0
	}
	b := math.Float64bits(f)
	if b>>63 == 1 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return fmt.Sprintf("%016x", b)
}
