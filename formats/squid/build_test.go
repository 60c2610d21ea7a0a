package squid_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/bloomcast/bloomcast/formats/squid"
)

// A digest of the URLs a cache holds, as a Squid peer fetches it.
func ExampleFromURLs() {
	urls := []string{"http://example.com/", "http://example.com/a", "http://example.com/"}
	d, err := squid.FromURLs(urls, 0, squid.DefaultBitsPerEntry)
	if err != nil {
		fmt.Println(err)
		return
	}
	in, _ := d.Contains(squid.GET, "http://EXAMPLE.com:80/a")
	fmt.Println(d.Header.Capacity, "entries,", d.Header.Count, "URLs; /a:", in)
	// Output:
	// 3 entries, 2 URLs; /a: true
}

func TestFromURLs(t *testing.T) {
	d, err := squid.FromURLs(nil, 0, 5)
	if err != nil || d.Header.Capacity != 1 || d.Header.Count != 0 {
		t.Fatalf("no URLs: %+v, %v", d, err)
	}
	if d, err = squid.FromURLs([]string{"http://a/"}, 1000, 8); err != nil || d.Header.Capacity != 1000 || d.Header.BitsPerEntry != 8 {
		t.Fatalf("capacity 1000: %+v, %v", d, err)
	}
	if _, err := squid.FromURLs([]string{"not a url"}, 0, 5); err == nil {
		t.Error("a relative URL accepted")
	}
	if _, err := squid.FromURLs(nil, squid.MaxCapacity+1, 5); !errors.Is(err, squid.ErrConfig) {
		t.Errorf("capacity above the maximum: %v", err)
	}
}
