package workload

import (
	"strings"
	"testing"

	"graphcc/topo"
)

func TestGenSettings(t *testing.T) {
	f, err := topo.Clos(topo.ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	def := GenSettings{Workload: "fb_hadoop", Load: 0.6, Duration: "25ms", IncastPeriod: "1ms", IncastFanIn: 3, IncastSize: 64000}
	with := func(f func(*GenSettings)) GenSettings { s := def; f(&s); return s }
	g, err := def.Config(f, "--")
	if err != nil || g.Workload.Name != "fb_hadoop" || g.Load != 0.6 || g.Duration != 25*topo.Millisecond ||
		g.Incast != (IncastConfig{Period: topo.Millisecond, FanIn: 3, Size: 64000}) || g.Start != DefaultStart {
		t.Errorf("Config() = %+v, %v", g, err)
	}
	if g, err := with(func(s *GenSettings) { s.NoIncast, s.IncastFanIn = true, 99 }).Config(f, "--"); err != nil || g.Incast.Period != 0 {
		t.Errorf("NoIncast: incast period %d, %v", g.Incast.Period, err)
	}
	for _, tc := range []struct {
		s   GenSettings
		err string
	}{
		{with(func(s *GenSettings) { s.Workload = "nope" }), "--workload nope: "},
		{with(func(s *GenSettings) { s.Load = 1.5 }), "--load: "},
		{with(func(s *GenSettings) { s.Duration = "0" }), "--duration 0: must be positive"},
		{with(func(s *GenSettings) { s.IncastPeriod = "1" }), "--incast-period 1: bad delay"},
		{with(func(s *GenSettings) { s.IncastFanIn = 4 }), "--incast-fanin: "},
		{with(func(s *GenSettings) { s.IncastFanIn = 4 }), " (lower it, or use --no-incast)"},
		{with(func(s *GenSettings) { s.IncastSize = 0 }), "--incast-size: "},
	} {
		if _, err := tc.s.Config(f, "--"); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.s, err, tc.err)
		}
	}
}
