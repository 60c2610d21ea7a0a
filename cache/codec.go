package cache

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"net/http"
	"slices"
	"time"
)

// The on-disk entry format, version 1. Integers are unsigned LEB128
// varints (times: zig-zag varints of Unix nanoseconds):
//
//	magic "BCCE" 0x01
//	url         len, bytes
//	status      varint
//	request     time
//	response    time
//	header      count, then per field: name len, name, value count, values (len, bytes)
//	req header  as header (the fields Vary names)
//	body        len, bytes
//	crc         CRC-32C (Castagnoli) of everything before it, 4 bytes little-endian
//
// Field names are written sorted, so an entry has one encoding.
var entryMagic = []byte("BCCE\x01")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendEntry appends the encoding of e to dst.
func appendEntry(dst []byte, e *Entry) []byte {
	start := len(dst)
	dst = append(dst, entryMagic...)
	dst = appendString(dst, e.URL)
	dst = binary.AppendUvarint(dst, uint64(max(e.Status, 0)))
	dst = binary.AppendVarint(dst, e.RequestTime.UnixNano())
	dst = binary.AppendVarint(dst, e.ResponseTime.UnixNano())
	dst = appendHeader(dst, e.Header)
	dst = appendHeader(dst, e.ReqHeader)
	dst = binary.AppendUvarint(dst, uint64(len(e.Body)))
	dst = append(dst, e.Body...)
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

func appendString(dst []byte, s string) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

func appendHeader(dst []byte, h http.Header) []byte {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	slices.Sort(names)
	dst = binary.AppendUvarint(dst, uint64(len(names)))
	for _, k := range names {
		dst = appendString(dst, k)
		dst = binary.AppendUvarint(dst, uint64(len(h[k])))
		for _, v := range h[k] {
			dst = appendString(dst, v)
		}
	}
	return dst
}

// decodeEntry decodes one encoded entry, checking the checksum first.
// Every length and count is checked against the bytes present before
// anything is allocated, so the memory used is proportional to len(b).
func decodeEntry(b []byte) (*Entry, error) {
	if len(b) < len(entryMagic)+4 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, len(b))
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if got := crc32.Checksum(body, castagnoli); got != sum {
		return nil, fmt.Errorf("%w: checksum %08x, stored %08x", ErrCorrupt, got, sum)
	}
	return decodeEntryPayload(body)
}

// decodeEntryPayload decodes an entry without its checksum.
func decodeEntryPayload(b []byte) (*Entry, error) {
	if len(b) < len(entryMagic) || string(b[:len(entryMagic)]) != string(entryMagic) {
		return nil, fmt.Errorf("%w: bad magic or version", ErrCorrupt)
	}
	d := decoder{b: b[len(entryMagic):]}
	e := &Entry{}
	e.URL = d.string("url")
	e.Status = int(d.uvarint("status", 999))
	e.RequestTime = d.time("request time")
	e.ResponseTime = d.time("response time")
	e.Header = d.header("header")
	e.ReqHeader = d.header("request header")
	if body := d.bytes("body"); d.err == nil {
		e.Body = append([]byte{}, body...)
	}
	if d.err == nil && len(d.b) != 0 {
		d.err = fmt.Errorf("%w: %d trailing bytes", ErrCorrupt, len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return e, nil
}

// decoder reads varint-framed fields, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

// uvarint reads a varint no larger than limit.
func (d *decoder) uvarint(what string, limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: truncated %s", ErrCorrupt, what)
		return 0
	}
	if v > limit {
		d.err = fmt.Errorf("%w: %s %d exceeds %d", ErrCorrupt, what, v, limit)
		return 0
	}
	d.b = d.b[n:]
	return v
}

// bytes reads a length-prefixed byte string, checking the length against
// the bytes left; the result aliases the input.
func (d *decoder) bytes(what string) []byte {
	n := d.uvarint(what+" length", math.MaxUint64)
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.err = fmt.Errorf("%w: %s length %d exceeds the %d bytes left", ErrCorrupt, what, n, len(d.b))
		return nil
	}
	b := d.b[:n]
	d.b = d.b[n:]
	return b
}

func (d *decoder) string(what string) string { return string(d.bytes(what)) }

func (d *decoder) time(what string) time.Time {
	if d.err != nil {
		return time.Time{}
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = fmt.Errorf("%w: truncated %s", ErrCorrupt, what)
		return time.Time{}
	}
	d.b = d.b[n:]
	return time.Unix(0, v)
}

// header reads a field map. Each field takes at least two bytes and each
// value at least one, which bounds the counts by the bytes left.
func (d *decoder) header(what string) http.Header {
	n := d.uvarint(what+" field count", uint64(len(d.b)/2))
	if d.err != nil || n == 0 {
		return nil
	}
	h := make(http.Header, n)
	for range n {
		name := d.string(what + " name")
		nv := d.uvarint(what+" value count", uint64(len(d.b)))
		if d.err != nil {
			return nil
		}
		vs := make([]string, 0, nv)
		for range nv {
			vs = append(vs, d.string(what+" value"))
		}
		if d.err != nil {
			return nil
		}
		if _, dup := h[name]; dup {
			d.err = fmt.Errorf("%w: %s field %q twice", ErrCorrupt, what, name)
			return nil
		}
		h[name] = vs
	}
	return h
}
