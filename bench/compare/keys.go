package compare

import (
	"strings"
)

// KeyLen is the length of every generated key, about that of a short CDN
// asset URL: the workload bloomcast's cache digests carry.
const KeyLen = len(keyPrefix) + idDigits + len(keySuffix)

const (
	keyPrefix = "https://cdn-00.example.com/assets/"
	keySuffix = ".js"
	idDigits  = 8
	// idSpace is 36^8, the number of distinct 8-digit base-36 ids.
	idSpace = 2821109907456
	// idMultiplier is odd and not a multiple of 3, so it is coprime to
	// idSpace and i ↦ i·idMultiplier mod idSpace is a bijection: distinct
	// indices give distinct keys, while the ids look scattered rather than
	// sequential. It is small enough that i·idMultiplier cannot overflow
	// for any i below 2^32.
	idMultiplier = 2654435761
	// cdnOffset is where the two digits of "cdn-NN" sit in keyPrefix.
	cdnOffset = len("https://cdn-")
)

// MaxKeys is the number of distinct keys the generator can produce.
const MaxKeys = 1 << 32

// Keys returns the keys with indices [from, from+count), each KeyLen bytes.
// Key i is the same in every run, and keys of distinct indices differ, so
// index ranges that do not overlap give disjoint sets (members and
// non-members). The keys are substrings of one large string: one
// allocation, and nothing for the garbage collector to walk but the slice.
func Keys(from, count int) []string {
	if from < 0 || count < 0 || uint64(from)+uint64(count) > MaxKeys {
		panic("compare: key indices out of range")
	}
	var b strings.Builder
	b.Grow(count * KeyLen)
	buf := []byte(keyPrefix + strings.Repeat("0", idDigits) + keySuffix)
	for i := from; i < from+count; i++ {
		formatKey(buf, uint64(i))
		b.Write(buf)
	}
	all := b.String()
	keys := make([]string, count)
	for i := range keys {
		keys[i] = all[i*KeyLen : (i+1)*KeyLen]
	}
	return keys
}

// formatKey writes key i into buf, which holds a key template.
func formatKey(buf []byte, i uint64) {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	cdn := i % 64
	buf[cdnOffset] = byte('0' + cdn/10)
	buf[cdnOffset+1] = byte('0' + cdn%10)
	id := i * idMultiplier % idSpace
	for j := len(keyPrefix) + idDigits - 1; j >= len(keyPrefix); j-- {
		buf[j] = digits[id%36]
		id /= 36
	}
}
