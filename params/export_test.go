package params

import "math"

// ExactBlockRate is the false-positive rate of a filter of blocks·b bits
// holding n keys, with each key in a uniform block setting k uniform bits
// of it (with repetition), computed without the two approximations of the
// Putze–Sanders–Singler model: the block load is Binomial(n, 1/blocks)
// rather than Poisson, and a block's rate is E[(X/b)^k] over the exact
// distribution of its number X of set bits (Bose et al., "On the
// false-positive rate of Bloom filters", IPL 108(4), 2008) rather than
// (E[X]/b)^k. Too slow for sizing; a reference for the tests.
func ExactBlockRate(blocks, b, n, k int) float64 {
	p := 1 / float64(blocks)
	mean := float64(n) * p
	jMax := min(n, int(mean+12*math.Sqrt(mean)+20))
	rates := occupancyRates(b, k, jMax)
	lgN, _ := math.Lgamma(float64(n) + 1)
	sum := 0.0
	for j := 0; j <= jMax; j++ {
		lgJ, _ := math.Lgamma(float64(j) + 1)
		lgR, _ := math.Lgamma(float64(n-j) + 1)
		logPMF := lgN - lgJ - lgR + float64(j)*math.Log(p) + float64(n-j)*math.Log1p(-p)
		sum += math.Exp(logPMF) * rates[j]
	}
	return sum
}

// occupancyRates returns r[j] = E[(X/b)^k], X the number of distinct bits
// that j·k uniform probes set among b, for j = 0..jMax. It tracks the
// distribution of X probe by probe: a probe lands on a set bit with
// probability x/b.
func occupancyRates(b, k, jMax int) []float64 {
	dist := make([]float64, b+1)
	dist[0] = 1
	pow := make([]float64, b+1)
	for x := range pow {
		pow[x] = math.Pow(float64(x)/float64(b), float64(k))
	}
	r := make([]float64, jMax+1)
	for j := 0; j <= jMax; j++ {
		if j > 0 {
			for range k {
				for x := b; x >= 1; x-- {
					dist[x] = dist[x]*float64(x)/float64(b) + dist[x-1]*float64(b-x+1)/float64(b)
					if dist[x] < 1e-280 {
						dist[x] = 0 // subnormals are slow and weigh nothing here
					}
				}
				dist[0] = 0
			}
		}
		for x, px := range dist {
			r[j] += px * pow[x]
		}
	}
	return r
}
