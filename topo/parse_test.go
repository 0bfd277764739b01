package topo

import (
	"strings"
	"testing"
)

func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		v      string
		zeroOK bool
		want   int64
		err    string
	}{
		{"1us", false, Microsecond, ""},
		{"1.5us", false, 1500 * Nanosecond, ""},
		{"0", true, 0, ""},
		{"0s", true, 0, ""},
		{"0", false, 0, "--d 0: must be positive"},
		{"0ms", false, 0, "--d 0ms: must be positive"},
		{"5", true, 0, `--d 5: bad delay "5": missing unit`},
		{"-1us", true, 0, "--d -1us: bad delay"},
		{"fast", false, 0, "--d fast: bad delay"},
	} {
		got, err := ParseDuration("--d", tc.v, tc.zeroOK)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseDuration(%q, %v) = %d, %v; want %d, %q", tc.v, tc.zeroOK, got, err, tc.want, tc.err)
		}
	}
}

func TestParseLinkRate(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int64
		err  string
	}{
		{"25Gbps", 25 * Gbps, ""},
		{"2.5Gbps", 2500 * Mbps, ""},
		{"0Gbps", 0, "--r 0Gbps: must be positive"},
		{"25G", 0, `--r 25G: bad rate "25G": unknown unit`},
		{"", 0, "--r : bad rate"},
	} {
		got, err := ParseLinkRate("--r", tc.v)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseLinkRate(%q) = %d, %v; want %d, %q", tc.v, got, err, tc.want, tc.err)
		}
	}
}

// FuzzParseDuration checks that what ParseDuration accepts is a duration
// FormatDuration writes back in a form it reads as the same.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0", "1us", "1.5us", "25ms", "7ps", "0.000001s", "1e3us", "-1us", "99999999999s"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, v string, zeroOK bool) {
		d, err := ParseDuration("--d", v, zeroOK)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "--d "+v+": ") {
				t.Fatalf("%q: error %q does not name the value", v, err)
			}
			return
		}
		if d < 0 || d == 0 && !zeroOK {
			t.Fatalf("%q (zeroOK %v): %d", v, zeroOK, d)
		}
		back, err := ParseDuration("--d", FormatDuration(d), zeroOK)
		if err != nil || back != d {
			t.Fatalf("%q: %d formats as %q, which reads as %d, %v", v, d, FormatDuration(d), back, err)
		}
	})
}
