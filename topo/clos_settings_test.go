package topo

import (
	"math"
	"strings"
	"testing"
)

func TestClosSettings(t *testing.T) {
	def := ClosSettingsOf(DefaultClos())
	if got, err := def.Config("--"); err != nil || got != DefaultClos() {
		t.Errorf("ClosSettingsOf(DefaultClos()).Config() = %+v, %v; want %+v", got, err, DefaultClos())
	}
	with := func(f func(*ClosSettings)) ClosSettings { s := def; f(&s); return s }
	for _, tc := range []struct {
		s   ClosSettings
		err string
	}{
		{with(func(s *ClosSettings) { s.Leaves = 0 }), "--leaves 0: must be at least 1"},
		{with(func(s *ClosSettings) { s.Spines = -1 }), "--spines -1: must be at least 1"},
		{with(func(s *ClosSettings) { s.HostsPerLeaf = 0 }), "--hosts-per-leaf 0: must be at least 1"},
		{with(func(s *ClosSettings) { s.HostRate = "0Gbps" }), "--host-rate 0Gbps: must be positive"},
		{with(func(s *ClosSettings) { s.FabricRate = "fast" }), "--fabric-rate fast: bad rate"},
		{with(func(s *ClosSettings) { s.LinkDelay = "1" }), "--link-delay 1: bad delay"},
		{with(func(s *ClosSettings) { s.BufferMB = 0 }), "--buffer-mb 0: must be positive and at most 4e+12 MiB"},
		{with(func(s *ClosSettings) { s.BufferMB = math.NaN() }), "--buffer-mb NaN: must be positive"},
		{with(func(s *ClosSettings) { s.BufferMB = 1e13 }), "--buffer-mb 1e+13: must be positive"},
	} {
		if _, err := tc.s.Config("--"); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.err)
		}
	}
	if got, err := with(func(s *ClosSettings) { s.LinkDelay, s.BufferMB = "0", 1.5 }).Config("--"); err != nil || got.LinkDelay != 0 || got.Buffer != 3<<19 {
		t.Errorf("zero delay, 1.5 MiB: %+v, %v", got, err)
	}
}
