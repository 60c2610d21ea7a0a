package mht

import (
	"errors"
	"math"
	"testing"

	"github.com/bloomcast/bloomcast/params"
)

// bruteMHT enumerates every assignment of buckets to n items in a table
// of the given sizes and returns the exact mean occupancy of each level
// and the crisis probability.
func bruteMHT(n int, sizes []uint64) ([]float64, float64) {
	d := len(sizes)
	choice := make([]int, n*d) // item i's bucket in level j: choice[i*d+j]
	mean := make([]float64, d)
	crisis, total := 0.0, 0.0
	for {
		used := make([][]bool, d)
		for j := range used {
			used[j] = make([]bool, sizes[j])
		}
		failed := false
		for i := range n {
			placed := false
			for j := range d {
				if b := choice[i*d+j]; !used[j][b] {
					used[j][b], placed = true, true
					mean[j]++
					break
				}
			}
			failed = failed || !placed
		}
		if failed {
			crisis++
		}
		total++
		// Next assignment (odometer).
		k := 0
		for ; k < len(choice); k++ {
			choice[k]++
			if choice[k] < int(sizes[k%d]) {
				break
			}
			choice[k] = 0
		}
		if k == len(choice) {
			break
		}
	}
	for j := range mean {
		mean[j] /= total
	}
	return mean, crisis / total
}

func TestNewOccupancyExact(t *testing.T) {
	for _, c := range []struct {
		n     int
		sizes []uint64
	}{{2, []uint64{2}}, {3, []uint64{3, 1}}, {4, []uint64{4, 2}}, {4, []uint64{3, 2, 1}}, {5, []uint64{5, 3}}} {
		o, err := NewOccupancy(uint64(c.n), c.sizes)
		if err != nil {
			t.Fatal(err)
		}
		mean, crisis := bruteMHT(c.n, c.sizes)
		for j, l := range o.Levels {
			if math.Abs(l.Placed-mean[j]) > 1e-9 {
				t.Errorf("%v: level %d holds %.6f, enumeration %.6f", c, j+1, l.Placed, mean[j])
			}
		}
		if math.Abs(o.Crisis-crisis) > 1e-9 {
			t.Errorf("%v: crisis %.6g, enumeration %.6g", c, o.Crisis, crisis)
		}
	}
}

// The heuristic and the exact expectation agree closely for large tables,
// and the distribution of the items offered to each level sums to 1.
func TestNewOccupancyLarge(t *testing.T) {
	sizes, err := GeometricSizes(30000, 0.5, 5)
	if err != nil || sizes[4] != 1875 {
		t.Fatal(sizes, err)
	}
	o, err := NewOccupancy(10000, sizes)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for j, l := range o.Levels {
		total += l.Placed
		if math.Abs(l.Placed-l.Approx) > 1+0.01*l.Approx {
			t.Errorf("level %d: exact %.2f, heuristic %.2f", j+1, l.Placed, l.Approx)
		}
		_, p := o.Offered(j + 1)
		s := 0.0
		for _, x := range p {
			s += x
		}
		if math.Abs(s-1) > 1e-9 {
			t.Errorf("level %d: offered distribution sums to %v", j+1, s)
		}
	}
	if math.Abs(total+o.ExpectedOverflow-10000) > 1e-6 || o.Crisis > 1e-12 || o.Crisis <= 0 {
		t.Errorf("total %v, overflow %v, crisis %v", total, o.ExpectedOverflow, o.Crisis)
	}
}

func TestMHTInvalid(t *testing.T) {
	for _, s := range [][]uint64{nil, {0}, make([]uint64, MaxLevels+1)} {
		if _, err := NewOccupancy(10, s); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: %v", s, err)
		}
	}
	if _, err := GeometricSizes(10, 1.5, 3); !errors.Is(err, ErrConfig) {
		t.Error(err)
	}
	o, _ := NewOccupancy(100, []uint64{300, 150})
	if _, _, err := o.MBFSizes(0, 0.1); !errors.Is(err, ErrConfig) {
		t.Error(err)
	}
}

func TestSummaryBounds(t *testing.T) {
	sizes, _ := GeometricSizes(30000, 0.5, 4)
	o, _ := NewOccupancy(10000, sizes)
	sf := o.SFBounds(60000, 8, 0)
	if sf.Bits != 60000*3 || sf.FalsePositive != params.ClassicExact(60000, 10000, 8) || sf.TypeFailure <= 0 || sf.TypeFailure > sf.FalsePositive {
		t.Errorf("SF %+v", sf)
	}
	if c := o.SFBounds(60000, 8, 4); c.Bits != 60000*4*4 || c.TypeFailure != sf.TypeFailure {
		t.Errorf("counting SF %+v", c)
	}
	m, k, err := o.MBFSizes(12, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	mbf := o.MBFBounds(m, k, 0)
	if mbf.AnyFailure > 1e-3 || m[0] != 120000 || m[1] >= m[0] || m[3] > m[2] {
		t.Errorf("MBF %v %v %+v", m, k, mbf)
	}
	// Interpolation search: the birthday bound, small and exact.
	in := o.InterpBounds(40)
	want := float64(10000) * 9999 / 2 / math.Ldexp(1, 40)
	if math.Abs(in.AnyFailure-want)/want > 1e-3 || in.Bits != 10000*(40+2) || in.TypeFailure != 0 {
		t.Errorf("interp %+v, want failure %.4g", in, want)
	}
	song := o.SongBounds(4)
	if !song.Estimate || song.Bits != 4*(30000+15000+7500+3750) || song.FalsePositive <= 0 || song.FalsePositive >= 1 {
		t.Errorf("song %+v", song)
	}
}

// Song et al.'s table: the false-positive rate is the product of the
// sub-tables' nonzero probabilities, and with one sub-table every item
// stays in its only bucket, so the figures are exact binomial moments,
// whether or not the counters stick.
func TestSongBounds(t *testing.T) {
	o, err := NewOccupancy(1000, []uint64{3000, 1500, 750})
	if err != nil {
		t.Fatal(err)
	}
	b := o.SongBounds(4)
	fp := 1.0
	for _, m := range []float64{3000, 1500, 750} {
		fp *= 1 - math.Pow(1-1/m, 1000)
	}
	if math.Abs(b.FalsePositive-fp) > 1e-12 || b.TypeFailure != 0 || !b.Estimate || b.Bits != 4*5250 {
		t.Errorf("%+v, want false positives %.6g", b, fp)
	}
	if b.ItemsPresent <= 1 || b.ItemsPresent >= 1+999.0/3000 || b.ItemsAbsent <= 0 || b.ItemsAbsent >= b.FalsePositive*b.ItemsPresent*2 {
		t.Errorf("items %+v", b)
	}
	const n, m = 500, 200
	one, err := NewOccupancy(n, []uint64{m})
	if err != nil {
		t.Fatal(err)
	}
	q := 1.0 / m
	p0, p1 := math.Pow(1-q, n), n*q*math.Pow(1-q, n-1)
	for _, bits := range []int{1, 2, 16} {
		b := one.SongBounds(bits)
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"false positives", b.FalsePositive, 1 - p0},
			{"items per stored key", b.ItemsPresent, 1 + (n-1)*q},
			{"items per absent key", b.ItemsAbsent, n * q},
			{"crowded buckets", b.CrowdedBuckets, m * (1 - p0 - p1)},
		} {
			if math.Abs(c.got-c.want) > 1e-9*c.want {
				t.Errorf("%d-bit counters: %s %.10g, want %.10g", bits, c.name, c.got, c.want)
			}
		}
	}
}
