package memory

// EstimateTokens approximates how many LLM tokens text costs without a
// tokenizer: one token per four ASCII bytes (the usual rule of thumb for
// English with BPE tokenizers) plus one per non-ASCII rune (CJK and other
// scripts tokenize near one token per character), rounded up. It errs on the
// high side, which keeps budgets safe.
func EstimateTokens(text string) int {
	ascii, other := 0, 0
	for _, r := range text {
		if r < 0x80 {
			ascii++
		} else {
			other++
		}
	}
	return (ascii+3)/4 + other
}
