package anyfile

import (
	"bufio"
	"bytes"
	"io"
	"os"

	"github.com/bloomcast/bloomcast/digest"
	"github.com/bloomcast/bloomcast/formats/parquet"
)

// parquetKind is a Parquet file (formats/parquet): its footer and every
// split block filter its column chunks carry, read into memory. It
// answers by column and row group (parquet.File.Probe through As, ColumnFilter) and
// is never written.
type parquetKind struct {
	none
	p *parquet.File
}

func decodeParquet(f *File, data []byte) error {
	p, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	f.k = &parquetKind{p: p}
	return nil
}

func (*parquetKind) Kind() Kind { return ParquetFile }

func (k *parquetKind) structures() []any { return []any{k.p} }

// errParquetFile is the error of what a Parquet file does not do.
func errParquetFile(what string) error {
	return errorf("a Parquet file holds one filter per column chunk: it %s", what)
}

func (*parquetKind) contains(*File, []byte) (bool, error) {
	return false, errParquetFile("answers by column and row group (parquet.File.Probe, ColumnFilter)")
}

func (*parquetKind) add(*File, []byte) error {
	return errParquetFile("takes no keys: its filters describe the values in its row groups, which bloomcast does not rewrite")
}

func (*parquetKind) encoding(*File, digest.Codec) (io.WriterTo, error) {
	return Frame(nil), errParquetFile("is not written back: bloomcast does not rewrite Parquet files")
}

func (*parquetKind) combine(*File, *File, bool) error {
	return errParquetFile("does not combine: bloomcast does not rewrite Parquet files")
}

func (*parquetKind) foldable(*File) error {
	return errParquetFile("is not folded: bloomcast does not rewrite Parquet files")
}

func (k *parquetKind) fold(f *File, _ uint64) error { return k.foldable(f) }

// checkKeys: the column's type says how its values hash (ColumnFilter).
func (*parquetKind) checkKeys(*File) error { return nil }

// readParquet reads a Parquet file: its footer, and every split block
// filter its column chunks carry, into memory, so that the File answers
// after r is closed. A reader that can seek (an *os.File) is read only
// there, however large the file; any other is read whole, within the
// payload limit.
func readParquet(r io.Reader, br *bufio.Reader, opt Options) (*File, error) {
	type statReaderAt interface {
		io.ReaderAt
		Stat() (os.FileInfo, error)
	}
	sr, ok := r.(statReaderAt)
	if !ok {
		return readForeign(br, FormatParquet, opt)
	}
	fi, err := sr.Stat()
	if err != nil {
		return nil, err
	}
	rec := &recordingReaderAt{r: sr}
	pf, err := parquet.OpenFile(rec, fi.Size())
	if err != nil {
		return nil, err
	}
	for _, c := range pf.Filters() {
		if _, err := pf.ReadFilter(c); err != nil {
			return nil, err
		}
	}
	rec.r = nil // from now on, only what was read
	return &File{Size: fi.Size(), k: &parquetKind{p: pf}, format: FormatParquet}, nil
}

// recordingReaderAt reads through r and keeps what it read; once r is
// nil it serves those bytes only.
type recordingReaderAt struct {
	r     io.ReaderAt
	spans []span
}

type span struct {
	off int64
	b   []byte
}

func (rr *recordingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if rr.r != nil {
		n, err := rr.r.ReadAt(p, off)
		rr.spans = append(rr.spans, span{off, append([]byte(nil), p[:n]...)})
		return n, err
	}
	for _, s := range rr.spans {
		if off >= s.off && off+int64(len(p)) <= s.off+int64(len(s.b)) {
			return copy(p, s.b[off-s.off:]), nil
		}
	}
	for _, s := range rr.spans { // a read that ended at the file's end
		if off == s.off && len(s.b) < len(p) {
			return copy(p, s.b), io.EOF
		}
	}
	return 0, errorf("bytes %d to %d of the Parquet file were not read when it was opened", off, off+int64(len(p)))
}
