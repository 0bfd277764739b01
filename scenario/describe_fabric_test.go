package scenario

import (
	"strings"
	"testing"

	"graphcc/topo"
)

func TestDescribeFabric(t *testing.T) {
	clos := topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20}
	f, err := topo.Clos(clos)
	if err != nil {
		t.Fatal(err)
	}
	file, err := topo.ReadTopology(strings.NewReader(string(mustTopology(t, f))), "fat.txt", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Scenario
		want string
	}{
		{Scenario{Clos: clos}, "Clos of 2 leaves x 2 hosts, 2 spines: 4 hosts, 4 switches, 8 links"},
		{Scenario{Clos: clos, Fail: []string{"leaf0-spine1"}, FailRandom: 1},
			"Clos of 2 leaves x 2 hosts, 2 spines (failed leaf0-spine1, 1 random switch link(s) failed): 4 hosts, 4 switches, 8 links"},
		{Scenario{Topology: file, TopologyName: "fat.txt"}, "fat.txt: 4 hosts, 4 switches, 8 links"},
	} {
		if got := tc.s.DescribeFabric(f); got != tc.want {
			t.Errorf("DescribeFabric = %q, want %q", got, tc.want)
		}
	}
}

// mustTopology is f as a topology.txt.
func mustTopology(t *testing.T, f *topo.Fabric) []byte {
	var b strings.Builder
	if err := f.WriteTopology(&b); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}
