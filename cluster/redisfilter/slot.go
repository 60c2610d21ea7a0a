package redisfilter

import (
	"strconv"
	"sync"
)

// Redis Cluster maps a key to one of 16384 hash slots by CRC16 (the
// XMODEM variant: polynomial 0x1021, initial value 0, no reflection) of
// the key, or of its hash tag, the part between the first "{" and the
// next "}" when that part is not empty (Redis Cluster specification,
// "Hash tags"). The shards' keys carry tags chosen so that shard i of n
// falls on slot base + i·16384/n: the shards spread evenly over the slot
// space, and so over masters that hold equal ranges of it, which is how
// redis-cli --cluster create assigns them.

// slots is the number of hash slots of Redis Cluster.
const slots = 16384

// crc16Table is the byte-wise table of CRC16-XMODEM.
var crc16Table = func() (t [256]uint16) {
	for i := range t {
		c := uint16(i) << 8
		for range 8 {
			if c&0x8000 != 0 {
				c = c<<1 ^ 0x1021
			} else {
				c <<= 1
			}
		}
		t[i] = c
	}
	return t
}()

// crc16 is CRC16-XMODEM of s: crc16("123456789") = 0x31C3.
func crc16(s string) uint16 {
	var c uint16
	for i := 0; i < len(s); i++ {
		c = c<<8 ^ crc16Table[byte(c>>8)^s[i]]
	}
	return c
}

// keySlot is the hash slot of a key without a hash tag, or of a tag.
func keySlot(s string) int { return int(crc16(s) % slots) }

// slotTags returns, for every slot, the shortest decimal tag (the smallest
// number) whose slot it is. Filling the table takes about 16384·ln 16384
// CRCs of a few bytes, once per process.
var slotTags = sync.OnceValue(func() *[slots]string {
	var t [slots]string
	for n, left := 0, slots; left > 0; n++ {
		s := strconv.Itoa(n)
		if i := keySlot(s); t[i] == "" {
			t[i] = s
			left--
		}
	}
	return &t
})
