package cache

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

var (
	dayNames     = []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	longDayNames = []string{"Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"}
	monthNames   = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// parseHTTPDate parses an HTTP-date (RFC 9110 §5.6.7) strictly: one of
// the three formats a recipient must accept, with their exact spacing,
// two-digit fields and case-sensitive names,
//
//	IMF-fixdate   Sun, 06 Nov 1994 08:49:37 GMT
//	rfc850-date   Sunday, 06-Nov-94 08:49:37 GMT
//	asctime-date  Sun Nov  6 08:49:37 1994
//
// It reports false for anything else, such as a one-digit hour, doubled
// spaces, or a time zone other than GMT, which time.Parse (and so
// http.ParseTime) would accept; a cache must take an invalid Expires as
// already expired (RFC 9111 §5.3) and ignore an invalid If-Modified-Since
// (RFC 9110 §13.1.3). A two-digit year is the one that is not more than
// 50 years after now (RFC 9110 §5.6.7).
func parseHTTPDate(s string, now time.Time) (time.Time, bool) {
	switch {
	case len(s) == len("Sun, 06 Nov 1994 08:49:37 GMT"):
		if !shaped(s, "aaa, 00 aaa 0000 00:00:00 GMT") || !slices.Contains(dayNames, s[:3]) || !slices.Contains(monthNames, s[8:11]) {
			return time.Time{}, false
		}
		t, err := time.Parse(http.TimeFormat, s)
		return t, err == nil
	case len(s) == len("Sun Nov  6 08:49:37 1994"):
		day := []byte(s)
		if day[8] == ' ' {
			day[8] = '0' // " 6" is the one-digit day
		}
		if !shaped(string(day), "aaa aaa 00 00:00:00 0000") || !slices.Contains(dayNames, s[:3]) || !slices.Contains(monthNames, s[4:7]) {
			return time.Time{}, false
		}
		t, err := time.Parse(time.ANSIC, s)
		return t, err == nil
	}
	name, rest, ok := strings.Cut(s, ", ")
	if !ok || !slices.Contains(longDayNames, name) || !shaped(rest, "00-aaa-00 00:00:00 GMT") || !slices.Contains(monthNames, rest[3:6]) {
		return time.Time{}, false
	}
	t, err := time.Parse("02-Jan-06 15:04:05 MST", rest)
	if err != nil {
		return time.Time{}, false
	}
	// time.Parse put the year in 1969–2068; RFC 9110 wants the latest
	// year with those two digits that is at most 50 years ahead.
	year := now.Year() - now.Year()%100 + t.Year()%100
	if year > now.Year()+50 {
		year -= 100
	}
	return t.AddDate(year-t.Year(), 0, 0), true
}

// shaped reports whether s matches pattern, where '0' stands for a digit,
// 'a' for an ASCII letter, and every other byte for itself.
func shaped(s, pattern string) bool {
	if len(s) != len(pattern) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch pattern[i] {
		case '0':
			if c < '0' || c > '9' {
				return false
			}
		case 'a':
			if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') {
				return false
			}
		default:
			if c != pattern[i] {
				return false
			}
		}
	}
	return true
}
