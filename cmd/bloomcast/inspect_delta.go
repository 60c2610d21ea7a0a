package main

import (
	"fmt"
	"strconv"

	"github.com/bloomcast/bloomcast/envelope"
)

// deltaReport is what inspect prints for a delta digest.
type deltaReport struct {
	File          string   `json:"file"`
	Format        string   `json:"format"` // "bloomcast"
	FormatVersion uint16   `json:"format_version"`
	Type          string   `json:"type"` // "delta"
	Target        string   `json:"target"`
	Codec         string   `json:"codec"`
	Sequence      uint64   `json:"sequence"`
	BaseSequence  uint64   `json:"base_sequence"`
	BaseChecksum  string   `json:"base_checksum"`
	Seed          uint64   `json:"seed"`
	HashSchemeID  uint8    `json:"hash_scheme_id"`
	Bits          uint64   `json:"bits"`
	ChangedBits   uint64   `json:"changed_bits"`
	EncodedBytes  int64    `json:"encoded_bytes"`
	PayloadBytes  int      `json:"payload_bytes"`
	EntropyBytes  float64  `json:"entropy_bytes"`
	EntropyRatio  *float64 `json:"entropy_ratio"`
}

func inspectDelta(e *env, path string, lf *loadedFilter, asJSON bool) error {
	d := lf.Delta
	r := deltaReport{
		File: path, Format: lf.Format().String(), FormatVersion: lf.Header.Version, Type: envelope.TypeDelta.String(),
		Target: d.Target.String(), Codec: d.Codec.String(), Sequence: d.Sequence,
		BaseSequence: d.BaseSequence, BaseChecksum: fmt.Sprintf("%08x", d.BaseChecksum),
		Seed: lf.Header.Seed, HashSchemeID: lf.Header.Scheme, Bits: d.Bits, ChangedBits: d.Changed(),
		EncodedBytes: lf.Size, PayloadBytes: d.PayloadBytes, EntropyBytes: d.EntropyBits() / 8,
	}
	r.EntropyRatio = entropyRatio(int64(r.PayloadBytes), r.EntropyBytes)
	if asJSON {
		return writeJSON(e.stdout, r)
	}
	var kv keyValues
	kv.add("file", displayName(r.File))
	kv.add("format version", strconv.Itoa(int(r.FormatVersion)))
	kv.add("structure", "delta digest of a "+r.Target+" filter")
	kv.add("codec", r.Codec)
	kv.add("sequence", fmt.Sprintf("%d, from base %d (words' CRC-32C %s)", r.Sequence, r.BaseSequence, r.BaseChecksum))
	kv.add("hash scheme", fmt.Sprintf("id %d, seed %#x", r.HashSchemeID, r.Seed))
	kv.add("changed bits", fmt.Sprintf("%d of %d (%.4g%%)", r.ChangedBits, r.Bits, 100*float64(r.ChangedBits)/float64(max(r.Bits, 1))))
	kv.add("size", fmt.Sprintf("%d bytes encoded (%s)", r.EncodedBytes, humanBytes(r.EncodedBytes)))
	kv.add("payload", payloadLine(int64(r.PayloadBytes), r.EntropyBytes, r.EntropyRatio))
	return kv.write(e.stdout)
}
