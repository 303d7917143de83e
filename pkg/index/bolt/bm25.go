package bolt

// BM25's term factor, tf/(tf+norm(length)) with norm(l) = k1·(1 − b +
// b·l/avgdl), is what keyword search computes once per posting it reads.
// Its inputs are the posting's frequency, in the posting list, and the
// memory's length, in an array of the org indexed by ordinal: a second
// random read per posting, which cost about as much as the score's own
// (a million memories' lengths are 4 MB, beyond the core's cache). So a
// posting's entry packs the length beside the frequency when both are
// small, as they are for nearly every memory (a message is tens of tokens,
// a document fragment a few hundred), and scoring it reads nothing but
// its list and the accumulator. The scores are the same: the length is
// the memory's own, not a rounded one (Lucene rounds its norms to a byte).

// tfLen is one posting's entry. Packed (the top bit clear): the frequency
// less one in the next tfLenTFBits bits and the memory's length in the
// low tfLenBits. Wide (the top bit set): the frequency alone, up to
// maxCountedTF, and the length is read from the org's array.
type tfLen uint16

const (
	tfLenBits    = 12                    // the length's bits in a packed entry
	tfLenMaxLen  = 1<<tfLenBits - 1      // the longest memory a packed entry holds: 4,095 tokens
	tfLenTFBits  = 15 - tfLenBits        // the frequency's bits in a packed entry
	tfLenMaxTF   = 1 << tfLenTFBits      // the greatest frequency a packed entry holds: 8
	tfLenWide    = 1 << 15               // set in a wide entry
	maxCountedTF = uint16(tfLenWide - 1) // a term's frequency in one memory counts up to 32,767
	tfLenLow     = tfLen(tfLenMaxLen)    // mask of a packed entry's length
	tfLenTFMask  = tfLen(tfLenMaxTF-1) << tfLenBits
)

// packTFLen is the entry of a posting of frequency tf (at least 1) in a
// memory of the given length; a frequency past maxCountedTF counts as maxCountedTF.
func packTFLen(tf uint16, length uint32) tfLen {
	if tf >= 1 && tf <= tfLenMaxTF && length <= tfLenMaxLen {
		return tfLen(tf-1)<<tfLenBits | tfLen(length)
	}
	return tfLenWide | tfLen(min(tf, maxCountedTF))
}

// tf is the entry's frequency.
func (e tfLen) tf() uint16 {
	if e&tfLenWide == 0 {
		return uint16((e&tfLenTFMask)>>tfLenBits) + 1
	}
	return uint16(e &^ tfLenWide)
}

// bm25 is BM25's length normalisation for one search: the average length
// of the memories its reader sees fixes it. short tables it for the
// lengths packed entries hold, up to the longest memory the org has held.
type bm25 struct {
	c0, c1 float64 // norm(l) = c0 + c1·l
	short  [tfLenMaxLen + 1]float32
}

// reset sets n for an average length avgdl, tabling the lengths up to
// longest (those past it are never packed in this org: orgIndex.longest).
func (n *bm25) reset(avgdl float64, longest uint32) {
	n.c0, n.c1 = k1*(1-b), k1*b/avgdl
	for l := range min(int(longest), tfLenMaxLen) + 1 {
		n.short[l] = float32(n.c0 + n.c1*float64(l))
	}
}

// norm is the normalisation of a memory of length l, computed: short
// holds the same values for the lengths a packed entry can carry, and is
// filled only up to the longest length reset was given.
func (n *bm25) norm(l uint32) float32 {
	return float32(n.c0 + n.c1*float64(l))
}

// factor is the term factor of the entry e of the memory at ordinal d;
// lengths, the org's memory lengths, is read only for a wide entry.
func (n *bm25) factor(e tfLen, lengths []uint32, d uint32) float32 {
	if e&tfLenWide == 0 {
		tf := float32((e&tfLenTFMask)>>tfLenBits + 1)
		return tf / (tf + n.short[e&tfLenLow])
	}
	tf := float32(e &^ tfLenWide)
	return tf / (tf + n.norm(lengths[d]))
}
