package dcqcn

import (
	"strings"
	"testing"

	"graphcc/topo"
)

// TestSettingsApply checks the settings' periods and rates: parsed into
// Params, and refused with an error naming the setting.
func TestSettingsApply(t *testing.T) {
	us := topo.Microsecond
	def := SettingsOf(DefaultParams(RefLineRate))
	with := func(f func(*Settings)) Settings { s := def; f(&s); return s }
	for _, tc := range []struct {
		s                      Settings
		timer, alpha, decrease int64
		err                    string
	}{
		{def, 300 * us, 1 * us, 4 * us, ""},
		{with(func(s *Settings) { s.RPTimer, s.AlphaPeriod, s.DecreasePeriod = "55us", "55us", "2us" }), 55 * us, 55 * us, 2 * us, ""},
		{with(func(s *Settings) { s.AlphaPeriod = "1.5us" }), 300 * us, 1500 * topo.Nanosecond, 4 * us, ""},
		{with(func(s *Settings) { s.DecreasePeriod = "299us" }), 300 * us, 1 * us, 299 * us, ""},
		{s: with(func(s *Settings) { s.AlphaPeriod = "0" }), err: "--dcqcn-alpha-period 0: must be positive"},
		{s: with(func(s *Settings) { s.AlphaPeriod = "2" }), err: "--dcqcn-alpha-period 2: bad delay"},
		{s: with(func(s *Settings) { s.AlphaPeriod = "-1us" }), err: "--dcqcn-alpha-period -1us: bad delay"},
		{s: with(func(s *Settings) { s.DecreasePeriod = "0s" }), err: "--dcqcn-decrease-period 0s: must be positive"},
		{s: with(func(s *Settings) { s.DecreasePeriod = "fast" }), err: "--dcqcn-decrease-period fast: bad delay"},
		{s: with(func(s *Settings) { s.DecreasePeriod = "3000000s" }), err: "--dcqcn-decrease-period 3000000s: too long"},
		{s: with(func(s *Settings) { s.DecreasePeriod = "300us" }), err: "--dcqcn-rp-timer 300us: must exceed --dcqcn-decrease-period 300us plus the first check's delay (300001ns)"},
		{s: with(func(s *Settings) { s.RPTimer, s.DecreasePeriod = "55us", "60us" }), err: "--dcqcn-rp-timer 55us: must exceed --dcqcn-decrease-period 60us"},
		{s: with(func(s *Settings) { s.RPTimer = "0" }), err: "--dcqcn-rp-timer 0: must be positive"},
		{s: with(func(s *Settings) { s.G = 2 }), err: "--dcqcn-g 2: must be in (0, 1]"},
		{s: with(func(s *Settings) { s.AIMbps = -1 }), err: "--dcqcn-ai-mbps -1: must be a non-negative rate"},
		{s: with(func(s *Settings) { s.MinRateMbps = 1e300 }), err: "--dcqcn-min-rate-mbps 1e+300: must be a non-negative rate"},
	} {
		p := DefaultParams(RefLineRate)
		err := tc.s.Apply(&p, "--dcqcn-")
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want one containing %q", tc.s, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%+v: %v", tc.s, err)
			continue
		}
		want := DefaultParams(RefLineRate)
		want.IncreaseInterval, want.AlphaInterval, want.DecreaseInterval = tc.timer, tc.alpha, tc.decrease
		if p != want {
			t.Errorf("%+v: %+v, want %+v", tc.s, p, want)
		}
	}
	if def.AlphaPeriod != "1us" || def.DecreasePeriod != "4us" || def.AIMbps != 5 || def.HAIMbps != 50 {
		t.Errorf("defaults %+v", def)
	}
}

func TestSettingsCheckLineRates(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mbps float64
		err  string
	}{
		{100, ""},
		{25000, ""},
		{25001, "--dcqcn-min-rate-mbps 25001: above host h0's line rate 25Gbps"},
	} {
		err := Settings{MinRateMbps: tc.mbps}.CheckLineRates(f, "--dcqcn-")
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || err.Error() != tc.err) {
			t.Errorf("min rate %v: %v, want %q", tc.mbps, err, tc.err)
		}
	}
}
