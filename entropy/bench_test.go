package entropy

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"
)

// benchM is the benchmark array: 2^23 bits, 1 MiB.
const benchM = 1 << 23

var benchPs = []float64{0.5, 0.3, 0.2, 0.1, 0.06, 0.03, 0.01}

var (
	benchMu   sync.Mutex
	benchData = map[float64][]uint64{}
)

// benchArray returns a cached i.i.d. array of benchM bits of density p.
func benchArray(p float64) []uint64 {
	benchMu.Lock()
	defer benchMu.Unlock()
	if w, ok := benchData[p]; ok {
		return w
	}
	w := randomBits(rand.New(rand.NewPCG(uint64(p*1e6), 7)), benchM, p)
	benchData[p] = w
	return w
}

// cpuClock measures a benchmark's loop in CPU time of its thread, which
// other processes on a shared machine do not inflate: it reports cpuMB/s
// beside the wall-clock MB/s (Linux only).
type cpuClock struct {
	start time.Duration
	ok    bool
}

func startCPU() cpuClock {
	runtime.LockOSThread()
	t, ok := threadCPU()
	return cpuClock{t, ok}
}

func (c cpuClock) report(b *testing.B, bytes int64) {
	t, ok := threadCPU()
	runtime.UnlockOSThread()
	if c.ok && ok && t > c.start {
		b.ReportMetric(float64(bytes)*float64(b.N)/(t-c.start).Seconds()/1e6, "cpuMB/s")
	}
}

// idealBytes is m·H(p̂)/8 for the array's own density p̂.
func idealBytes(w []uint64, m uint64) float64 {
	return float64(m) * Entropy(float64(onesCount(w, m))/float64(m)) / 8
}

// BenchmarkBits measures every bit coder and flate level 9 at each density
// on 1 MiB arrays; MB/s counts uncompressed bytes (m/8), cpuMB/s the same
// per second of the benchmark thread's CPU time, and %overH is the stream
// size over m·H(p̂)/8, minus 1, in percent.
//
//	go test -run '^$' -bench Bits -count 5 ./entropy
func BenchmarkBits(b *testing.B) {
	for _, p := range benchPs {
		w := benchArray(p)
		ideal := idealBytes(w, benchM)
		for _, c := range []Codec{Fast, RANS, Arith} {
			enc, err := EncodeBits(nil, w, benchM, c)
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("p=%.2f/%v/encode", p, c), func(b *testing.B) {
				b.SetBytes(benchM / 8)
				buf := make([]byte, 0, len(enc)+benchM/8)
				cpu := startCPU()
				for b.Loop() {
					buf, _ = EncodeBits(buf[:0], w, benchM, c)
				}
				cpu.report(b, benchM/8)
				b.ReportMetric(100*(float64(len(enc))/ideal-1), "%overH")
			})
			b.Run(fmt.Sprintf("p=%.2f/%v/decode", p, c), func(b *testing.B) {
				b.SetBytes(benchM / 8)
				dst := make([]uint64, len(w))
				cpu := startCPU()
				for b.Loop() {
					if err := DecodeBits(dst, enc, benchM, c); err != nil {
						b.Fatal(err)
					}
				}
				cpu.report(b, benchM/8)
				b.ReportMetric(100*(float64(len(enc))/ideal-1), "%overH")
			})
		}
		raw := make([]byte, benchM/8)
		for i, v := range w {
			binary.LittleEndian.PutUint64(raw[8*i:], v)
		}
		var z bytes.Buffer
		fw, _ := flate.NewWriter(&z, flate.BestCompression)
		fw.Write(raw)
		fw.Close()
		zs := z.Bytes()
		b.Run(fmt.Sprintf("p=%.2f/flate9/encode", p), func(b *testing.B) {
			b.SetBytes(benchM / 8)
			var out bytes.Buffer
			cpu := startCPU()
			for b.Loop() {
				out.Reset()
				fw.Reset(&out)
				fw.Write(raw)
				fw.Close()
			}
			cpu.report(b, benchM/8)
			b.ReportMetric(100*(float64(len(zs))/ideal-1), "%overH")
		})
		b.Run(fmt.Sprintf("p=%.2f/flate9/decode", p), func(b *testing.B) {
			b.SetBytes(benchM / 8)
			dst := make([]byte, len(raw))
			fr := flate.NewReader(bytes.NewReader(zs))
			cpu := startCPU()
			for b.Loop() {
				fr.(flate.Resetter).Reset(bytes.NewReader(zs), nil)
				if _, err := io.ReadFull(fr, dst); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b, benchM/8)
			b.ReportMetric(100*(float64(len(zs))/ideal-1), "%overH")
		})
	}
}

// BenchmarkCounters measures the counter coder on 2^21 4-bit counters
// (1 MiB) of a counting filter with k·n/m = ln 2 (counter values Poisson
// with mean ln 2), and 2^20 8-bit counters.
func BenchmarkCounters(b *testing.B) {
	for _, width := range []uint{4, 8} {
		n := uint64(benchM) / uint64(width)
		w := poissonCounters(rand.New(rand.NewPCG(3, 4)), n, width, math.Ln2)
		enc, err := EncodeCounters(nil, w, n, width)
		if err != nil {
			b.Fatal(err)
		}
		ideal := order0Bytes(w, n, width)
		b.Run(fmt.Sprintf("width=%d/encode", width), func(b *testing.B) {
			b.SetBytes(benchM / 8)
			buf := make([]byte, 0, len(enc)+benchM/8)
			cpu := startCPU()
			for b.Loop() {
				buf, _ = EncodeCounters(buf[:0], w, n, width)
			}
			cpu.report(b, benchM/8)
			b.ReportMetric(100*(float64(len(enc))/ideal-1), "%overH0")
		})
		b.Run(fmt.Sprintf("width=%d/decode", width), func(b *testing.B) {
			b.SetBytes(benchM / 8)
			dst := make([]uint64, len(w))
			cpu := startCPU()
			for b.Loop() {
				if err := DecodeCounters(dst, enc, n, width); err != nil {
					b.Fatal(err)
				}
			}
			cpu.report(b, benchM/8)
			b.ReportMetric(100*(float64(len(enc))/ideal-1), "%overH0")
		})
	}
}
