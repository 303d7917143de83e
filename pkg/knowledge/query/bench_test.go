package query

import "testing"

func BenchmarkParse(b *testing.B) {
	src := []byte(docExamples[len(docExamples)-1])
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTranslate(b *testing.B) {
	for b.Loop() {
		if _, err := Translate("When did Ana move to Lisbon with her sister last summer?", now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvaluate measures the evaluator's own work over the in-memory
// reference index (the lookups of a real index are not included).
func BenchmarkEvaluate(b *testing.B) {
	ev := &Evaluator{Index: world(), Related: NoRelated{}}
	x, err := Translate("What sports has Ana tried since last year?", now)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := ev.Evaluate(ctx, base, x); err != nil {
			b.Fatal(err)
		}
	}
}
