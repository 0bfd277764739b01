package experiment

import (
	"math"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

func TestParseRewards(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{" ", nil},
		{DefaultRewards(), []string{"convex:25"}},
		{"linear, concave:32,convex:12.5", []string{"linear:25", "concave:32", "convex:12.5"}},
	} {
		rs, err := ParseRewards(tc.in)
		if err != nil {
			t.Fatalf("ParseRewards(%q): %v", tc.in, err)
		}
		var names []string
		for _, r := range rs {
			names = append(names, r.Name)
		}
		if !slices.Equal(names, tc.want) {
			t.Errorf("ParseRewards(%q) = %v, want %v", tc.in, names, tc.want)
		}
	}
	// Each reward scores with its own shape and Q: on a port queued at
	// 16 KB, idle otherwise, f(16/Q) weighted 0.7, averaged over the agents.
	f, err := topo.Clos(topo.ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 1, HostRate: 25 * topo.Gbps, FabricRate: 25 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	agents := f.Agents()
	tel := &control.Telemetry{Interval: control.DefaultInterval, Ports: make([]control.PortSample, len(f.Ports))}
	tel.Ports[agents[0]].EnqHist.Add(15) // 15 packets met on arrival
	q := tel.Ports[agents[0]].QueueFeature()
	rs, err := ParseRewards("linear:32,concave:64")
	if err != nil {
		t.Fatal(err)
	}
	n := float64(len(agents))
	for i, want := range []float64{
		0.7*(1-q/32000)/n + 0.7*(n-1)/n,
		0.7*(1-(q/64000)*(q/64000))/n + 0.7*(n-1)/n,
	} {
		if got := rs[i].New(f)(tel); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: score %v, want %v (queue %v B)", rs[i].Name, got, want, q)
		}
	}
}

func TestParseRewardsErrors(t *testing.T) {
	for in, want := range map[string]string{
		"nosuch":           "nosuch: ",
		"linear:x":         `linear:x: queue Q "x" must be a number of KB in (0, 1e9]`,
		"linear,linear:25": "linear:25 given twice",
	} {
		if _, err := ParseRewards(in); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseRewards(%q): %v, want an error starting %q", in, err, want)
		}
	}
}
