package scenario

import (
	"fmt"
	"strings"

	"graphcc/topo"
)

// DescribeFabric names f, the fabric of s at one seed (Fabric), in words
// for messages: "Clos of 4 leaves x 6 hosts, 2 spines (failed
// leaf0-spine1): 24 hosts, 6 switches, 32 links", or the topology file's
// name in place of the Clos.
func (s Scenario) DescribeFabric(f *topo.Fabric) string {
	what := fmt.Sprintf("Clos of %d leaves x %d hosts, %d spines", s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.Spines)
	if s.Topology != nil {
		what = s.TopologyName
	}
	var fails []string
	if len(s.Fail) > 0 {
		fails = append(fails, "failed "+strings.Join(s.Fail, ","))
	}
	if s.FailRandom > 0 {
		fails = append(fails, fmt.Sprintf("%d random switch link(s) failed", s.FailRandom))
	}
	if len(fails) > 0 {
		what += " (" + strings.Join(fails, ", ") + ")"
	}
	return fmt.Sprintf("%s: %d hosts, %d switches, %d links", what, len(f.Hosts()), len(f.Switches()), len(f.Links))
}
