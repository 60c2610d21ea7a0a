package hashing

import (
	"crypto/md5"
	"encoding/binary"
	"testing"
)

func TestSquidScheme(t *testing.T) {
	key := append([]byte{1}, "http://www.squid-cache.org/"...)
	sum := md5.Sum(key)
	h := Squid.Sum(key, 99)
	if h != Squid.SumString(string(key), 0) || h != MD5Hash128(sum) {
		t.Fatal("Sum, SumString and MD5Hash128 disagree (or the seed was used)")
	}
	const n = 1000003
	for i := 0; i < 8; i++ {
		want := uint64(binary.BigEndian.Uint32(sum[4*(i%4):])) % n
		if got := Squid.Probe(h, i, n); got != want {
			t.Errorf("probe %d = %d, want the big-endian word mod n = %d", i, got, want)
		}
	}
	if s, err := Lookup(SquidMD5); err != nil || s.ID() != SquidMD5 {
		t.Fatalf("Lookup(SquidMD5) = %v, %v", s, err)
	}
}
