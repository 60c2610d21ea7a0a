package cli

import (
	"fmt"
	"strconv"
)

func inspectDelta(e *env, path string, lf *loadedFilter, asJSON bool) error {
	r, err := lf.DeltaReport(path)
	if err != nil {
		return fileErr(path, err)
	}
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
