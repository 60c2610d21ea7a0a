package squid_test

import (
	"bytes"
	"fmt"

	"github.com/bloomcast/bloomcast/formats/squid"
)

// A Cache Digest as Squid builds it: sized for a capacity at bits per
// entry, keyed by Squid's store keys (MD5 of the method and the canonical
// URL), and read back, as from a Squid peer's /squid-internal-periodic/
// store_digest response.
func Example() {
	d, err := squid.New(1000, 5) // capacity 1000 entries, 5 bits each
	if err != nil {
		panic(err)
	}
	if err := d.Add(squid.GET, "http://WWW.Example.com:80/index.html"); err != nil {
		panic(err)
	}
	var body bytes.Buffer
	if _, err := d.WriteTo(&body); err != nil {
		panic(err)
	}

	peer, err := squid.Read(&body, squid.Limits{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("version %d, capacity %d, count %d, mask %d bytes, %d hash functions\n",
		peer.Header.Version, peer.Header.Capacity, peer.Header.Count, peer.Header.MaskSize, peer.Header.HashFuncCount)
	hit, _ := peer.Contains(squid.GET, "http://www.example.com/index.html") // the same URL, canonical
	miss, _ := peer.Contains(squid.GET, "http://www.example.com/other.html")
	fmt.Println(hit, miss)
	// Output:
	// version 5, capacity 1000, count 1, mask 625 bytes, 4 hash functions
	// true false
}

// StoreKey is the key Squid files a response under and puts into its
// digest, MD5 of the method's byte and the canonical URL: the same bytes
// for URLs that differ only where Squid canonicalises them.
func ExampleStoreKey() {
	a, _ := squid.StoreKey(squid.GET, "http://WWW.Example.com:80/a")
	b, _ := squid.StoreKey(squid.GET, "http://www.example.com/a")
	c, _ := squid.StoreKey(squid.HEAD, "http://www.example.com/a")
	fmt.Printf("%x\n%v %v\n", a, a == b, a == c)
	// Output:
	// 43fe238d1345a81bd988679d8267e3eb
	// true false
}
