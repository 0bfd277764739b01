package scenario

import (
	"strings"
	"testing"
)

// TestSettings builds the default settings' fabric and traffic, and
// refuses each bad setting naming it and its value.
func TestSettings(t *testing.T) {
	s := DefaultSettings()
	sc, f, err := s.Fabric("sim", "--")
	if err != nil {
		t.Fatal(err)
	}
	if sc.Name != "sim" || len(f.Hosts()) != 24 {
		t.Errorf("default fabric: %s, %d hosts", sc.Name, len(f.Hosts()))
	}
	flows, g, err := s.Traffic(f, "--")
	if err != nil || len(flows) == 0 || g.Seed != s.Seed || g.Load != s.Gen.Load {
		t.Errorf("default traffic: %d flows, %+v, %v", len(flows), g, err)
	}
	for _, c := range []struct {
		name string
		set  func(*Settings)
		want string
	}{
		{"leaves", func(s *Settings) { s.Clos.Leaves = 0 }, "--leaves 0: must be at least 1"},
		{"rate", func(s *Settings) { s.Clos.HostRate = "fast" }, "--host-rate"},
		{"topo", func(s *Settings) { s.Topology = "/nonexistent/topology.txt" }, "--topo: open /nonexistent/topology.txt"},
		{"buffer with topo", func(s *Settings) { s.Topology, s.Clos.BufferMB = "x", 0 }, "--buffer-mb 0: must be positive"},
		{"fail", func(s *Settings) { s.Fail = []string{"nope"} }, "--fail nope: "},
		{"fail random", func(s *Settings) { s.FailRandom = -1 }, "--fail-random -1: must not be negative"},
		{"fail too many", func(s *Settings) { s.FailRandom = 100 }, "--fail-random 100: "},
		{"one host", func(s *Settings) { s.Clos.Leaves, s.Clos.HostsPerLeaf = 1, 1 }, "--leaves/--hosts-per-leaf: the fabric has 1 host; traffic needs at least 2"},
		{"load", func(s *Settings) { s.Gen.Load = 2 }, "--load: "},
		{"workload", func(s *Settings) { s.Gen.Workload = "nope" }, "--workload nope: "},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := DefaultSettings()
			c.set(&s)
			_, f, err := s.Fabric("sim", "--")
			if err == nil {
				_, _, err = s.Traffic(f, "--")
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("got %v; want %q...", err, c.want)
			}
		})
	}
}
