package control

import (
	"strings"
	"testing"

	"graphcc/topo"
)

func TestParseInterval(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int64
		err  string
	}{
		{"100us", 100 * topo.Microsecond, ""},
		{"1us", MinInterval, ""},
		{"1ns", 0, "--interval 1ns: must be at least 1us: every port is sampled every interval"},
		{"0", 0, "--interval 0: must be positive"},
		{"1", 0, "--interval 1: bad delay"},
	} {
		got, err := ParseInterval("--interval", tc.v)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("ParseInterval(%q) = %d, %v; want %d, %q", tc.v, got, err, tc.want, tc.err)
		}
	}
}
