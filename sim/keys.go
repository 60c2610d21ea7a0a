package sim

import (
	"math/bits"
	"strconv"
)

// Words, top-level domains and file extensions from which Keys assembles
// URL-like keys. Each list's length is a power of two.
var (
	keyWords = [...]string{
		"alpha", "amber", "anchor", "apple", "arrow", "atlas", "badge", "banner",
		"basket", "beacon", "birch", "blossom", "border", "breeze", "bridge", "canyon",
		"carbon", "castle", "cedar", "circle", "cobalt", "comet", "copper", "coral",
		"cotton", "crystal", "delta", "desert", "ember", "falcon", "feather", "forest",
		"garden", "glacier", "granite", "harbor", "hollow", "island", "jasper", "lantern",
		"legend", "marble", "meadow", "mirror", "nebula", "orbit", "pebble", "pepper",
		"prairie", "quartz", "raven", "ribbon", "river", "saddle", "shadow", "signal",
		"silver", "spruce", "summit", "timber", "valley", "velvet", "willow", "zephyr",
	}
	keyTLDs = [...]string{"com", "org", "net", "io", "dev", "edu", "info", "example"}
	keyExts = [...]string{"html", "png", "js", "css", "json", "jpg", "svg", "txt"}
)

// Keys returns n distinct URL-like keys, such as
// "https://www.harbor.net/falcon/copper-meadow/1x7.png", generated from
// seed. The same seed gives the same keys on every platform and Go release,
// and Keys(seed, m) is a prefix of Keys(seed, n) for m ≤ n, so a caller
// that needs members and non-members can take the first and second halves
// of one call. Key i ends in i written in base 36, so no two keys of one
// call are equal; keys from different seeds may coincide, rarely.
func Keys(seed uint64, n int) []string {
	if n <= 0 {
		return nil
	}
	keys := make([]string, n)
	g := splitMix{state: seed}
	var r uint64 // random bits not used yet
	left := 0    // how many
	// pick returns a uniform index below size, a power of two.
	pick := func(size int) int {
		need := bits.TrailingZeros(uint(size))
		if left < need {
			r, left = g.next(), 64
		}
		v := int(r & uint64(size-1))
		r >>= need
		left -= need
		return v
	}
	var b []byte
	for i := range keys {
		b = append(b[:0], "https://"...)
		if pick(4) != 0 {
			b = append(b, "www."...)
		}
		b = append(b, keyWords[pick(len(keyWords))]...)
		b = append(b, '.')
		b = append(b, keyTLDs[pick(len(keyTLDs))]...)
		for depth := pick(4); depth >= 0; depth-- {
			b = append(b, '/')
			b = append(b, keyWords[pick(len(keyWords))]...)
			if pick(2) == 0 {
				b = append(b, '-')
				b = append(b, keyWords[pick(len(keyWords))]...)
			}
		}
		b = append(b, '/')
		b = strconv.AppendUint(b, uint64(i), 36)
		b = append(b, '.')
		b = append(b, keyExts[pick(len(keyExts))]...)
		keys[i] = string(b)
	}
	return keys
}

// splitMix is the SplitMix64 generator (Steele, Lea and Flood, "Fast
// splittable pseudorandom number generators", OOPSLA 2014): a fixed,
// documented sequence, unlike math/rand, whose streams may change between
// Go releases.
type splitMix struct{ state uint64 }

func (g *splitMix) next() uint64 {
	g.state += 0x9E3779B97F4A7C15
	z := g.state
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}
