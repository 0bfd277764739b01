package lab

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
)

// TestSpecRoundTrip writes the spec of a Clos with a failed link and of a
// topology file, reads each back, and rebuilds the same fabric.
func TestSpecRoundTrip(t *testing.T) {
	c := topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20}
	base, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	f, err := base.FailLinks("leaf0-spine1")
	if err != nil {
		t.Fatal(err)
	}
	var topology strings.Builder
	if err := f.WriteTopology(&topology); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []*Spec{
		{Clos: &c, Buffer: c.Buffer, Failed: FailedLinks(base, f), Scale: 100},
		{Topology: topology.String(), Buffer: c.Buffer, Scale: 100},
	} {
		dir := t.TempDir()
		if err := WriteSpec(dir, spec); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, SpecFile))
		if err != nil {
			t.Fatal(err)
		}
		var back Spec
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		g, err := back.Fabric()
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Links) != len(f.Links) || len(g.Hosts()) != len(f.Hosts()) || back.Scale != 100 {
			t.Errorf("spec %s: %d links, %d hosts, scale %d; want %d, %d, 100", b, len(g.Links), len(g.Hosts()), back.Scale, len(f.Links), len(f.Hosts()))
		}
	}
	if got := FailedLinks(base, f); !slices.Equal(got, []string{"leaf0-spine1"}) {
		t.Errorf("FailedLinks = %v", got)
	}
	if _, err := (&Spec{}).Fabric(); err == nil || !strings.Contains(err.Error(), SpecFile+": no fabric") {
		t.Errorf("empty spec: %v", err)
	}
}

// TestLoadSpecNoLab names the lab when it has no state.
func TestLoadSpecNoLab(t *testing.T) {
	if _, _, _, err := LoadSpec("nosuch", t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "lab nosuch: ") {
		t.Errorf("LoadSpec of no lab: %v", err)
	}
}
