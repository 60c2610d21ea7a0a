// Package coders measures bloomcast's bit-array coders (package entropy)
// and general-purpose compressors side by side, in one process, on the
// same i.i.d. random bit arrays: the size of each stream against the
// entropy bound m·H(p̂) and the encode and decode speed, on the CPU-time
// clock of the measuring thread and on the wall clock.
package coders

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/bloomcast/bloomcast/bench/compare"
	"github.com/bloomcast/bloomcast/entropy"
	"github.com/klauspost/compress/zstd"
)

// DefaultPs are the densities of the table in docs/BENCHMARKS.md,
// "Entropy coders".
var DefaultPs = []float64{0.5, 0.3, 0.2, 0.1, 0.06, 0.03, 0.01}

// Defaults for a zero Config field.
const (
	DefaultM       = 1 << 23 // bits per array: 1 MiB
	DefaultReps    = 7
	DefaultMinPass = 20 * time.Millisecond
)

// Config is one run.
type Config struct {
	// M is the number of bits of each array, a multiple of 64; zero means
	// DefaultM.
	M uint64
	// Ps are the densities of ones; nil means DefaultPs.
	Ps []float64
	// Seed makes the arrays: the same seed, m and p give the same array.
	Seed uint64
	// Reps is the number of rounds; the median is reported. Zero means
	// DefaultReps.
	Reps int
	// MinPass is the least duration of one timed pass: an operation
	// faster than that (by the untimed warm-up) is repeated within the
	// pass and the pass's time divided. Zero means DefaultMinPass; a
	// negative value times single runs.
	MinPass time.Duration
	// Coders are the contenders; nil means Coders().
	Coders []Coder
	// Progress receives one line per measurement; nil discards them.
	Progress io.Writer
}

// Coder is one contender: a way of turning an array into a stream and
// back.
type Coder struct {
	Name string
	Note string
	// New prepares the coder for one array, with its encoders, decoders
	// and buffers allocated up front so that the timed passes measure
	// coding, not allocation.
	New func(a *Array) (Instance, error)
	// Variant, if not nil, names the variant a stream was coded with
	// (bloomcast's fast coder picks one per array).
	Variant func(stream []byte) string
}

// Instance is a coder set up for one array.
type Instance interface {
	// Encode codes the array into a stream, which stays valid until the
	// next call.
	Encode() ([]byte, error)
	// Decode decodes a stream into the instance's own buffer.
	Decode(stream []byte) error
	// Check reports whether the buffer holds the array, as the last
	// Decode should have left it, and then spoils the buffer, so that
	// the next Check tests only later decodes.
	Check() bool
}

// Array is one bit array in both of the forms the coders take: words
// (bit b is Words[b/64]>>(b%64)&1, bloomcast's layout) and the
// little-endian bytes of those words, which is what a raw bloomcast
// stream holds and what the general-purpose compressors are given.
type Array struct {
	M     uint64
	Words []uint64
	Bytes []byte
	Ones  uint64
}

// NewArray returns the deterministic i.i.d. array of m bits (a multiple
// of 64), each 1 with probability p, for seed.
func NewArray(m uint64, p float64, seed uint64) *Array {
	r := rand.New(rand.NewPCG(seed, math.Float64bits(p)))
	thr := uint64(p * (1 << 53))
	a := &Array{M: m, Words: make([]uint64, m/64), Bytes: make([]byte, m/8)}
	for i := range a.Words {
		var w uint64
		for j := range 64 {
			if r.Uint64()>>11 < thr {
				w |= 1 << j
			}
		}
		a.Words[i] = w
		a.Ones += uint64(bits.OnesCount64(w))
		binary.LittleEndian.PutUint64(a.Bytes[8*i:], w)
	}
	return a
}

// Density is p̂, the array's measured density of ones.
func (a *Array) Density() float64 { return float64(a.Ones) / float64(a.M) }

// Ideal is m·H(p̂)/8, the entropy bound in bytes.
func (a *Array) Ideal() float64 { return float64(a.M) * entropy.Entropy(a.Density()) / 8 }

// Coders returns the contenders of the table: bloomcast's two bit
// coders, flate at level 9 and zstd at its best compression, in that
// order.
func Coders() []Coder {
	return []Coder{
		{Name: "bloomcast fast", New: bloomcastCoder(entropy.Fast), Variant: codecOf,
			Note: "entropy.EncodeBits / DecodeBits with entropy.Fast (raw near p = 1/2, else a static binomial byte model and 4-way rANS)"},
		{Name: "bloomcast arith", New: bloomcastCoder(entropy.Arith),
			Note: "entropy.EncodeBits / DecodeBits with entropy.Arith (adaptive binary model, 32-bit range coder)"},
		{Name: "flate -9", New: newFlate,
			Note: "compress/flate at BestCompression over the little-endian bytes; Writer and Reader reused through Reset"},
		{Name: "zstd best", New: newZstd,
			Note: "github.com/klauspost/compress/zstd at SpeedBestCompression over the little-endian bytes, concurrency 1, defaults otherwise (with its 4-byte checksum); EncodeAll / DecodeAll into preallocated buffers"},
	}
}

// codecOf names the codec a bloomcast stream records in its first byte.
func codecOf(stream []byte) string {
	if len(stream) == 0 {
		return ""
	}
	return entropy.Codec(stream[0]).String()
}

// spoil overwrites a decode buffer with the complement of the array's
// bytes, which differs from the array in every byte.
func spoil(dst, array []byte) {
	for i := range dst {
		dst[i] = ^array[i%len(array)]
	}
}

type bloomcast struct {
	codec entropy.Codec
	a     *Array
	enc   []byte
	dec   []uint64
}

func bloomcastCoder(c entropy.Codec) func(*Array) (Instance, error) {
	return func(a *Array) (Instance, error) {
		return &bloomcast{codec: c, a: a, enc: make([]byte, 0, len(a.Bytes)+64), dec: make([]uint64, len(a.Words))}, nil
	}
}

func (b *bloomcast) Encode() ([]byte, error) {
	var err error
	b.enc, err = entropy.EncodeBits(b.enc[:0], b.a.Words, b.a.M, b.codec)
	return b.enc, err
}

func (b *bloomcast) Decode(stream []byte) error {
	return entropy.DecodeBits(b.dec, stream, b.a.M, b.codec)
}

func (b *bloomcast) Check() bool {
	ok := slices.Equal(b.dec, b.a.Words)
	for i, w := range b.a.Words {
		b.dec[i] = ^w
	}
	return ok
}

// appender is an io.Writer that appends to a slice.
type appender struct{ b []byte }

func (w *appender) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

type flateCoder struct {
	a   *Array
	out appender
	w   *flate.Writer
	src bytes.Reader
	r   io.ReadCloser
	dec []byte
}

func newFlate(a *Array) (Instance, error) {
	f := &flateCoder{a: a, out: appender{make([]byte, 0, len(a.Bytes)+len(a.Bytes)/8+1024)}, dec: make([]byte, len(a.Bytes))}
	var err error
	if f.w, err = flate.NewWriter(&f.out, flate.BestCompression); err != nil {
		return nil, err
	}
	f.r = flate.NewReader(&f.src)
	return f, nil
}

func (f *flateCoder) Encode() ([]byte, error) {
	f.out.b = f.out.b[:0]
	f.w.Reset(&f.out)
	if _, err := f.w.Write(f.a.Bytes); err != nil {
		return nil, err
	}
	err := f.w.Close()
	return f.out.b, err
}

func (f *flateCoder) Decode(stream []byte) error {
	f.src.Reset(stream)
	if err := f.r.(flate.Resetter).Reset(&f.src, nil); err != nil {
		return err
	}
	if _, err := io.ReadFull(f.r, f.dec); err != nil {
		return err
	}
	// The stream must end where the array does.
	var one [1]byte
	if n, err := f.r.Read(one[:]); n != 0 || err != io.EOF {
		return fmt.Errorf("flate: data past the array (%d bytes, %v)", n, err)
	}
	return nil
}

func (f *flateCoder) Check() bool {
	ok := bytes.Equal(f.dec, f.a.Bytes)
	spoil(f.dec, f.a.Bytes)
	return ok
}

type zstdCoder struct {
	a        *Array
	enc, dec []byte
	w        *zstd.Encoder
	r        *zstd.Decoder
}

func newZstd(a *Array) (Instance, error) {
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	r, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	return &zstdCoder{a: a, w: w, r: r,
		enc: make([]byte, 0, len(a.Bytes)+len(a.Bytes)/8+1024), dec: make([]byte, 0, len(a.Bytes))}, nil
}

func (z *zstdCoder) Encode() ([]byte, error) {
	z.enc = z.w.EncodeAll(z.a.Bytes, z.enc[:0])
	return z.enc, nil
}

func (z *zstdCoder) Decode(stream []byte) error {
	var err error
	z.dec, err = z.r.DecodeAll(stream, z.dec[:0])
	return err
}

func (z *zstdCoder) Check() bool {
	ok := bytes.Equal(z.dec, z.a.Bytes)
	z.dec = z.dec[:cap(z.dec)]
	spoil(z.dec, z.a.Bytes)
	return ok
}

// Env records where and when a report was measured.
type Env = compare.RunEnv

// Timing is one operation's speed in MB/s (10^6 bytes of uncompressed
// array per second): the median over the rounds on the thread's CPU time
// and on the wall clock, and every round's time per run in nanoseconds.
type Timing struct {
	MBps          float64   `json:"cpu_mb_per_s"`
	WallMBps      float64   `json:"wall_mb_per_s"`
	SamplesNs     []float64 `json:"cpu_samples_ns"`
	WallSamplesNs []float64 `json:"wall_samples_ns"`
}

// Result is one coder on one array.
type Result struct {
	Name string `json:"name"`
	// Bytes is the stream's length and Ratio that over m·H(p̂)/8 (0 for
	// a constant array, whose bound is 0).
	Bytes int     `json:"bytes"`
	Ratio float64 `json:"ratio"`
	// Variant is the codec bloomcast's fast coder picked (raw, const,
	// rans); empty for the others.
	Variant string `json:"variant,omitempty"`
	// Runs is how many times the operation ran within each timed pass.
	EncodeRuns int    `json:"encode_runs"`
	DecodeRuns int    `json:"decode_runs"`
	Encode     Timing `json:"encode"`
	Decode     Timing `json:"decode"`
}

// Case is every coder on the array of one density.
type Case struct {
	P       float64  `json:"p"`
	Ones    uint64   `json:"ones"`
	Density float64  `json:"density"`
	Ideal   float64  `json:"ideal_bytes"`
	Results []Result `json:"results"`
}

// Row names and describes a coder.
type Row struct {
	Name string `json:"name"`
	Note string `json:"note"`
}

// Report is a whole run.
type Report struct {
	Env   Env    `json:"env"`
	M     uint64 `json:"m"`
	Seed  uint64 `json:"seed"`
	Reps  int    `json:"reps"`
	Rows  []Row  `json:"rows"`
	Cases []Case `json:"cases"`
}

// ErrMismatch is returned, wrapped, when a decode does not give back the
// array or an encoder's output changes between rounds.
var ErrMismatch = errors.New("coders: round trip mismatch")

// Run measures every coder at every density.
func Run(cfg Config) (*Report, error) {
	if cfg.M == 0 {
		cfg.M = DefaultM
	}
	if cfg.M%64 != 0 {
		return nil, fmt.Errorf("coders: m = %d is not a positive multiple of 64", cfg.M)
	}
	if cfg.Ps == nil {
		cfg.Ps = DefaultPs
	}
	for _, p := range cfg.Ps {
		if !(p >= 0 && p <= 1) {
			return nil, fmt.Errorf("coders: density %g outside [0, 1]", p)
		}
	}
	if cfg.Reps == 0 {
		cfg.Reps = DefaultReps
	}
	if cfg.Reps < 0 {
		return nil, fmt.Errorf("coders: %d reps", cfg.Reps)
	}
	if cfg.MinPass == 0 {
		cfg.MinPass = DefaultMinPass
	}
	if cfg.Coders == nil {
		cfg.Coders = Coders()
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	rep := &Report{
		Env:  compare.StartRunEnv(),
		M:    cfg.M,
		Seed: cfg.Seed,
		Reps: cfg.Reps,
	}
	for _, c := range cfg.Coders {
		rep.Rows = append(rep.Rows, Row{c.Name, c.Note})
	}
	for _, p := range cfg.Ps {
		c, err := runCase(&cfg, NewArray(cfg.M, p, cfg.Seed), p)
		if err != nil {
			return nil, fmt.Errorf("p=%g: %w", p, err)
		}
		rep.Cases = append(rep.Cases, c)
	}
	rep.Env.LoadEnd = compare.LoadAvg()
	return rep, nil
}

// contender is one coder's state during a case.
type contender struct {
	inst             Instance
	name, variant    string
	stream           []byte // the warm-up's encoding, which every later one must equal
	encRuns, decRuns int
	enc, dec         []compare.Sample
}

// runCase measures every coder on one array. After an untimed warm-up
// (which fixes each coder's stream and how many runs a pass needs), it
// runs Reps rounds; each round gives every coder one encode pass and one
// decode pass in turn, so that a slow stretch of a shared machine costs
// one pass of several coders rather than every pass of one, and checks
// every stream and every decode.
func runCase(cfg *Config, a *Array, p float64) (Case, error) {
	cs := make([]*contender, len(cfg.Coders))
	for i, c := range cfg.Coders {
		inst, err := c.New(a)
		if err != nil {
			return Case{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		ct := &contender{inst: inst, name: c.Name}
		if err := ct.warmUp(cfg.MinPass); err != nil {
			return Case{}, fmt.Errorf("%s: %w", c.Name, err)
		}
		if c.Variant != nil {
			ct.variant = c.Variant(ct.stream)
		}
		cs[i] = ct
	}
	runtime.GC()
	for range cfg.Reps {
		for _, ct := range cs {
			if err := ct.round(); err != nil {
				return Case{}, fmt.Errorf("%s: %w", ct.name, err)
			}
		}
	}
	c := Case{P: p, Ones: a.Ones, Density: a.Density(), Ideal: a.Ideal()}
	size := float64(len(a.Bytes))
	for _, ct := range cs {
		r := Result{
			Name: ct.name, Bytes: len(ct.stream), Variant: ct.variant,
			EncodeRuns: ct.encRuns, DecodeRuns: ct.decRuns,
			Encode: newTiming(ct.enc, size), Decode: newTiming(ct.dec, size),
		}
		if c.Ideal > 0 {
			r.Ratio = float64(r.Bytes) / c.Ideal
		}
		// A progress line is informational: failing to show one does not
		// change the measurement.
		_, _ = fmt.Fprintf(cfg.Progress, "p=%-5g %-16s %9d bytes %8.5f×  enc %8.2f MB/s (wall %8.2f)  dec %8.2f MB/s (wall %8.2f)\n",
			p, r.Name, r.Bytes, r.Ratio, r.Encode.MBps, r.Encode.WallMBps, r.Decode.MBps, r.Decode.WallMBps)
		c.Results = append(c.Results, r)
	}
	return c, nil
}

// warmUp encodes and decodes once, untimed but for the wall clock:
// it keeps the stream, checks the round trip, and sets how many runs a
// pass of each operation needs to last minPass.
func (ct *contender) warmUp(minPass time.Duration) error {
	start := time.Now()
	s, err := ct.inst.Encode()
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	ct.encRuns = runsFor(time.Since(start), minPass)
	ct.stream = slices.Clone(s)
	start = time.Now()
	err = ct.inst.Decode(ct.stream)
	ct.decRuns = runsFor(time.Since(start), minPass)
	return ct.checkDecode(err)
}

// runsFor is how many runs of an operation that took d make a pass of at
// least minPass, from 1 to 10^4.
func runsFor(d, minPass time.Duration) int {
	if minPass <= 0 || d >= minPass {
		return 1
	}
	return int(min(10_000, minPass/max(d, time.Microsecond)+1))
}

// round times one encode pass and one decode pass and checks them.
func (ct *contender) round() error {
	var s []byte
	var err error
	w := compare.StartWatch()
	for range ct.encRuns {
		s, err = ct.inst.Encode()
	}
	ct.enc = append(ct.enc, w.Stop(ct.encRuns))
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	if !bytes.Equal(s, ct.stream) {
		return fmt.Errorf("%w: the stream changed between rounds (%d bytes, then %d)", ErrMismatch, len(ct.stream), len(s))
	}
	// ct.stream equals s and, unlike s, is not overwritten by the
	// instance's next Encode.
	w = compare.StartWatch()
	for range ct.decRuns {
		err = ct.inst.Decode(ct.stream)
	}
	ct.dec = append(ct.dec, w.Stop(ct.decRuns))
	return ct.checkDecode(err)
}

// checkDecode turns a failed or wrong decode into an error.
func (ct *contender) checkDecode(err error) error {
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if !ct.inst.Check() {
		return fmt.Errorf("%w: decoding does not give back the array", ErrMismatch)
	}
	return nil
}

// newTiming summarises the samples of an operation on an array of size
// bytes.
func newTiming(samples []compare.Sample, size float64) Timing {
	t := Timing{SamplesNs: make([]float64, len(samples)), WallSamplesNs: make([]float64, len(samples))}
	for i, s := range samples {
		t.SamplesNs[i], t.WallSamplesNs[i] = s.CPU, s.Wall
	}
	mbps := func(ns float64) float64 {
		if ns <= 0 {
			return 0
		}
		return size / ns * 1e3 // bytes/ns · 10^9 / 10^6
	}
	t.MBps, t.WallMBps = mbps(compare.Median(t.SamplesNs)), mbps(compare.Median(t.WallSamplesNs))
	return t
}
