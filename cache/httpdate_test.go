package cache

import (
	"net/http"
	"testing"
	"time"
)

// TestParseHTTPDate checks the three HTTP-date formats a recipient must
// accept and the near misses it must not (RFC 9110 §5.6.7; an invalid
// Expires is already expired, RFC 9111 §5.3).
func TestParseHTTPDate(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, s := range []string{
		"Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
		"Sunday, 06-Nov-94 08:49:37 GMT", // rfc850-date
		"Sun Nov  6 08:49:37 1994",       // asctime-date
	} {
		got, ok := parseHTTPDate(s, now)
		if !ok || !got.Equal(want) {
			t.Errorf("%q: %v %v, want %v", s, got, ok, want)
		}
	}
	if got, ok := parseHTTPDate("Thursday, 06-Nov-70 08:49:37 GMT", now); !ok || got.Year() != 2070 {
		t.Errorf("rfc850 year 70 seen in 2026: %v %v, want 2070 (not more than 50 years ahead)", got, ok)
	}
	if got, ok := parseHTTPDate("Wednesday, 06-Nov-80 08:49:37 GMT", now); !ok || got.Year() != 1980 {
		t.Errorf("rfc850 year 80 seen in 2026: %v %v, want 1980", got, ok)
	}
	for _, s := range []string{
		"",
		"0",
		"-1",
		"Sun, 06 Nov 1994 8:49:37 GMT",      // one-digit hour
		"Sun, 06 Nov 1994  08:49:37 GMT",    // two spaces
		"Sun,  06 Nov 1994 08:49:37 GMT",    // two spaces
		"Sun, 6 Nov 1994 08:49:37 GMT",      // one-digit day
		"Sun, 06 Nov 1994 08:49:37 UTC",     // not GMT
		"Sun, 06 Nov 1994 08:49:37 +0000",   // not GMT
		"sun, 06 nov 1994 08:49:37 GMT",     // names are case-sensitive
		"Sun, 06 Nov 1994 08:49:37 GMT ",    // trailing space
		"Sun, 06 Nov 1994\r\n 08:49:37 GMT", // a folded line
		"Sun, 06 Nov 94 08:49:37 GMT",       // two-digit year in IMF-fixdate
		"Sun, 06 Nov 1994 25:49:37 GMT",     // hour out of range
		"Sun, 31 Feb 1994 08:49:37 GMT",     // no such day
		"Sunday, 06-Nov-1994 08:49:37 GMT",  // four-digit year in rfc850
		"Sun, 06-Nov-94 08:49:37 GMT",       // short day name in rfc850
		"Sun Nov 6 08:49:37 1994",           // asctime with one space
		"Sun Nov 06 08:49:37 1994 GMT",      // asctime with a zone
		"Xyz, 06 Nov 1994 08:49:37 GMT",     // no such day name
	} {
		if got, ok := parseHTTPDate(s, now); ok {
			t.Errorf("%q accepted as %v", s, got)
		}
	}
}

// TestExpiresInvalid checks that an Expires that is not an HTTP-date
// makes a response already expired (RFC 9111 §5.3), and a valid one gives
// the lifetime Expires minus Date (§4.2.1).
func TestExpiresInvalid(t *testing.T) {
	date := httpDate(t0)
	valid := t0.Add(time.Hour).UTC().Format(http.TimeFormat)
	if got := freshnessLifetime(200, hdr("Date", date, "Expires", valid), t0); got != time.Hour {
		t.Fatalf("valid Expires: lifetime %v, want 1h", got)
	}
	if got := freshnessLifetime(200, hdr("Date", date, "Expires", valid, "Expires", valid), t0); got != time.Hour {
		t.Errorf("Expires repeated with one value: lifetime %v, want 1h", got)
	}
	for _, exp := range []string{
		"0", "-1", "never",
		t0.Add(time.Hour).UTC().Format("Mon, 02 Jan 2006  15:04:05 GMT"),      // two spaces
		t0.Add(time.Hour).UTC().Format("Mon, 02 Jan 2006 3:04:05 GMT"),        // one-digit hour (the 12-hour "1")
		t0.Add(time.Hour).UTC().Format("Mon, 02 Jan 2006 15:04:05 MST") + " ", // trailing space
	} {
		if got := freshnessLifetime(200, hdr("Date", date, "Expires", exp), t0); got != 0 {
			t.Errorf("Expires %q: lifetime %v, want 0 (already expired)", exp, got)
		}
	}
	if got := freshnessLifetime(200, hdr("Date", date, "Expires", valid, "Expires", date), t0); got != 0 {
		t.Errorf("two different Expires: lifetime %v, want 0", got)
	}
}

// FuzzParseHTTPDate checks that any input either fails or gives a time
// whose IMF-fixdate parses back to the same instant.
func FuzzParseHTTPDate(f *testing.F) {
	for _, s := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "0"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseHTTPDate(s, now)
		if !ok {
			return
		}
		back, ok := parseHTTPDate(got.UTC().Format(http.TimeFormat), now)
		if !ok || !back.Equal(got) {
			t.Fatalf("%q → %v → %v %v", s, got, back, ok)
		}
	})
}
