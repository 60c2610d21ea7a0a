package apitest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/bloomcast/bloomcast/bloom"
	"github.com/bloomcast/bloomcast/bloomier"
	"github.com/bloomcast/bloomcast/cache"
	"github.com/bloomcast/bloomcast/counting"
	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/envelope"
	"github.com/bloomcast/bloomcast/formats/bitsandblooms"
	"github.com/bloomcast/bloomcast/formats/parquet"
	"github.com/bloomcast/bloomcast/formats/squid"
	"github.com/bloomcast/bloomcast/fpset"
	"github.com/bloomcast/bloomcast/icp"
	"github.com/bloomcast/bloomcast/mht"
	"github.com/bloomcast/bloomcast/node"
	"github.com/bloomcast/bloomcast/ribbon"
)

// receivers are, per exported type, a zero value and (where one can be
// built) a valid one: every exported method is called on each with zero
// or nil arguments.
func receivers(t *testing.T) []struct {
	name string
	v    any
} {
	bf := bloom.MustNew(bloom.Config{N: 100, P: 0.01})
	bf.AddString("k")
	cf := counting.MustNew(counting.Config{N: 100, P: 0.01})
	cf.AddString("k")
	cc, err := bloom.NewConcurrent(bloom.Config{N: 100, P: 0.01, Layout: bloom.Blocked})
	if err != nil {
		t.Fatal(err)
	}
	df, err := counting.NewDeletion(bloom.Config{N: 100, P: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	fht, err := mht.NewFHT(mht.FHTConfig{Sizes: []uint64{8, 4}, CounterBits: 4})
	if err != nil {
		t.Fatal(err)
	}
	fht.InsertString("k", 1)
	sbbf, err := parquet.NewNDV(100, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	sbbf.InsertString("k")
	return []struct {
		name string
		v    any
	}{
		{"zero bloom.Filter", &bloom.Filter{}},
		{"bloom.Filter", bf},
		{"zero bloom.Concurrent", &bloom.Concurrent{}},
		{"bloom.Concurrent", cc},
		{"zero bloom.Geometry", &bloom.Geometry{}},
		{"zero bloom.Config", &bloom.Config{}},
		{"zero counting.Filter", &counting.Filter{}},
		{"counting.Filter", cf},
		{"zero counting.DeletionFilter", &counting.DeletionFilter{}},
		{"counting.DeletionFilter", df},
		{"zero counting.Config", &counting.Config{}},
		{"zero digest.Digest", &digest.Digest{}},
		{"zero digest.Delta", &digest.Delta{}},
		{"zero digest.DeltaHeader", &digest.DeltaHeader{}},
		{"zero digest.Pieces", &digest.Pieces{}},
		{"zero digest.StaticPublisher", &digest.StaticPublisher{}},
		{"zero digest.StaticView", &digest.StaticView{}},
		{"zero digest.StaticConfig", &digest.StaticConfig{}},
		{"zero bloomier.Filter", &bloomier.Filter{}},
		{"zero ribbon.Filter", &ribbon.Filter{}},
		{"zero ribbon.Config", &ribbon.Config{}},
		{"zero fpset.Set", &fpset.Set{}},
		{"zero fpset.Sorted", &fpset.Sorted{}},
		{"zero fpset.Compressed", &fpset.Compressed{}},
		{"zero mht.Table", &mht.Table{}},
		{"zero mht.Interp", &mht.Interp{}},
		{"zero mht.MBF", &mht.MBF{}},
		{"zero mht.SF", &mht.SF{}},
		{"zero mht.Song", &mht.Song{}},
		{"zero mht.FHT", &mht.FHT{}},
		{"mht.FHT", fht},
		{"zero mht.FHTConfig", &mht.FHTConfig{}},
		{"zero squid.Digest", &squid.Digest{}},
		{"zero bitsandblooms.Filter", &bitsandblooms.Filter{}},
		{"zero parquet.Filter", &parquet.Filter{}},
		{"parquet.Filter", sbbf},
		{"zero parquet.File", &parquet.File{}},
		{"zero parquet.Fit", &parquet.Fit{}},
		{"zero icp.Client", &icp.Client{}},
		{"zero icp.Server", &icp.Server{}},
		{"zero node.Directory", &node.Directory{}},
		{"zero cache.Disk", &cache.Disk{}},
		{"zero cache.Memory", &cache.Memory{}},
		{"zero node.Node", &node.Node{}},
		{"zero cache.Proxy", &cache.Proxy{}},
		{"zero node.Publisher", &node.Publisher{}},
		{"zero envelope.Header", &envelope.Header{}},
		{"zero envelope.Limits", &envelope.Limits{}},
		{"zero envelope.Writer", &envelope.Writer{}},
	}
}

// functions are the packages' exported functions that take a pointer to
// one of their types, called with nil or zero arguments.
var functions = []struct {
	name string
	fn   any
}{
	{"bloom.New", bloom.New},
	{"bloom.NewConcurrent", bloom.NewConcurrent},
	{"bloom.NewView", bloom.NewView},
	{"bloom.FromWords", bloom.FromWords},
	{"bloom.FromFrame", bloom.FromFrame},
	{"bloom.Decode", bloom.Decode},
	{"bloom.PayloadBits", bloom.PayloadBits},
	{"counting.New", counting.New},
	{"counting.NewDeletion", counting.NewDeletion},
	{"counting.FromWords", counting.FromWords},
	{"counting.FromFrame", counting.FromFrame},
	{"counting.Decode", counting.Decode},
	{"counting.PayloadCounters", counting.PayloadCounters},
	{"digest.Append", digest.Append},
	{"digest.AppendDeltaXOR", digest.AppendDeltaXOR},
	{"digest.AppendDiff", digest.AppendDiff},
	{"digest.Checksum", digest.Checksum},
	{"digest.Diff", digest.Diff},
	{"digest.Encode", digest.Encode},
	{"digest.Decode", digest.Decode},
	{"digest.DecodeDelta", digest.DecodeDelta},
	{"digest.DeltaFromFrame", digest.DeltaFromFrame},
	{"digest.FromFrame", digest.FromFrame},
	{"digest.ParseDelta", digest.ParseDelta},
	{"digest.ParseDeltaHeader", digest.ParseDeltaHeader},
	{"digest.Patch", digest.Patch},
	{"envelope.AppendHeader", envelope.AppendHeader},
	{"envelope.AppendTrailer", envelope.AppendTrailer},
	{"envelope.AppendWords", envelope.AppendWords},
	{"envelope.Parse", envelope.Parse},
	{"envelope.ParsePrefix", envelope.ParsePrefix},
	{"parquet.Decode", parquet.Decode},
	{"parquet.FromBitset", parquet.FromBitset},
	{"parquet.OpenFile", parquet.OpenFile},
}

// withWriters lists the functions that take an io.Writer or io.Reader;
// they get a real one (a nil writer is the caller's bug in any package).
var withWriters = []struct {
	name string
	fn   any
}{
	{"bloom.Read", bloom.Read},
	{"counting.Read", counting.Read},
	{"digest.Read", digest.Read},
	{"digest.Write", digest.Write},
	{"envelope.Read", envelope.Read},
	{"envelope.NewWriter", envelope.NewWriter},
	{"envelope.WriteWords", envelope.WriteWords},
}

// zeroArgs returns a zero value for each parameter of ft: nil pointers,
// slices and maps, zero numbers, an empty buffer for an io.Writer or
// io.Reader.
func zeroArgs(ft reflect.Type) []reflect.Value {
	args := make([]reflect.Value, ft.NumIn())
	writer := reflect.TypeFor[io.Writer]()
	reader := reflect.TypeFor[io.Reader]()
	for i := range args {
		in := ft.In(i)
		if ft.IsVariadic() && i == ft.NumIn()-1 {
			in = in.Elem() // one zero element
			args = args[:i]
			args = append(args, reflect.Zero(in))
			continue
		}
		switch {
		case in == writer || in == reader:
			args[i] = reflect.ValueOf(new(bytes.Buffer))
		case in.Kind() == reflect.Func:
			args[i] = reflect.Zero(in)
		default:
			args[i] = reflect.Zero(in)
		}
	}
	return args
}

// call calls fn with args and returns what a panic carried, if one did.
func call(fn reflect.Value, args []reflect.Value) (recovered any) {
	defer func() { recovered = recover() }()
	fn.Call(args)
	return nil
}

// check fails t if a call panicked with a runtime error, or with a value
// that does not name its package.
func check(t *testing.T, what string, r any) {
	t.Helper()
	if r == nil {
		return
	}
	var re runtime.Error
	if err, ok := r.(error); ok && errors.As(err, &re) {
		t.Errorf("%s: runtime error: %v", what, r)
		return
	}
	msg := fmt.Sprint(r)
	if !strings.Contains(msg, ":") {
		t.Errorf("%s: panic %q does not name its package", what, msg)
	}
}

func TestZeroValuesAndNilArguments(t *testing.T) {
	for _, rc := range receivers(t) {
		v := reflect.ValueOf(rc.v)
		for i := 0; i < v.NumMethod(); i++ {
			m := v.Type().Method(i)
			check(t, rc.name+"."+m.Name, call(v.Method(i), zeroArgs(v.Method(i).Type())))
		}
	}
}

func TestFunctionsNilArguments(t *testing.T) {
	for _, f := range append(functions, withWriters...) {
		fn := reflect.ValueOf(f.fn)
		check(t, f.name, call(fn, zeroArgs(fn.Type())))
	}
}
