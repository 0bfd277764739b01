package scenario

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// Settings are a fabric and its traffic as a person writes them (graphcc's
// fabric and traffic flags bind to them): an HPCC topology file or a
// Clos, the links to fail by name and the number to fail at random, the
// traffic, and the seed. DefaultSettings gives the GraphCC training
// scenario.
type Settings struct {
	// Topology is an HPCC topology.txt file to use instead of Clos (whose
	// buffer it still takes), "" for the Clos.
	Topology   string
	Clos       topo.ClosSettings
	Fail       []string
	FailRandom int
	Gen        workload.GenSettings
	Seed       uint64
}

// DefaultSettings returns the settings of the GraphCC training scenario:
// topo.DefaultClos carrying workload.DefaultGen.
func DefaultSettings() Settings {
	g := workload.DefaultGen()
	return Settings{
		Clos: topo.ClosSettingsOf(topo.DefaultClos()),
		Gen: workload.GenSettings{Workload: g.Workload.Name, Load: g.Load, Duration: topo.FormatDuration(g.Duration),
			IncastPeriod: topo.FormatDuration(g.Incast.Period), IncastFanIn: g.Incast.FanIn, IncastSize: g.Incast.Size},
		Seed: g.Seed,
	}
}

// Fabric returns the scenario of s's fabric, named name, without traffic
// (Gen), and its fabric at Seed (Scenario.Fabric): the Topology file or
// the Clos, then the failures. Errors name the setting prefix and its
// key: topo, leaves, spines, hosts-per-leaf, host-rate, fabric-rate,
// link-delay, buffer-mb, fail, fail-random (with prefix "--", graphcc's
// flags).
func (s Settings) Fabric(name, prefix string) (Scenario, *topo.Fabric, error) {
	sc := Scenario{Name: name, Fail: s.Fail, FailRandom: s.FailRandom}
	var err error
	if s.Topology == "" {
		if sc.Clos, err = s.Clos.Config(prefix); err != nil {
			return sc, nil, err
		}
	} else if sc.Topology, err = s.readTopology(prefix); err != nil {
		return sc, nil, err
	}
	sc.TopologyName = s.Topology
	f, err := sc.Fabric(s.Seed)
	var be *BuildError
	if !errors.As(err, &be) {
		return sc, f, err
	}
	switch be.Field {
	case "Clos":
		return sc, nil, fmt.Errorf("%[1]sleaves/%[1]sspines/%[1]shosts-per-leaf: %w", prefix, be.Err)
	case "Fail":
		return sc, nil, fmt.Errorf("%sfail %s: %w", prefix, strings.Join(s.Fail, ","), be.Err)
	case "FailRandom":
		if s.FailRandom < 0 {
			return sc, nil, fmt.Errorf("%sfail-random %d: must not be negative", prefix, s.FailRandom)
		}
		return sc, nil, fmt.Errorf("%sfail-random %d: %w", prefix, s.FailRandom, be.Err)
	}
	return sc, nil, err
}

// readTopology reads the Topology file with the Clos's buffer.
func (s Settings) readTopology(prefix string) (*topo.Fabric, error) {
	buf, err := s.Clos.BufferBytes(prefix)
	if err != nil {
		return nil, err
	}
	file, err := os.Open(s.Topology)
	if err != nil {
		return nil, fmt.Errorf("%stopo: %w", prefix, err)
	}
	defer file.Close()
	f, err := topo.ReadTopology(file, s.Topology, buf)
	if err != nil {
		return nil, fmt.Errorf("%stopo: %w", prefix, err)
	}
	return f, nil
}

// Traffic returns the flows of s's traffic on fabric f (one of Fabric's)
// at Seed, and the traffic (workload.GenSettings.Config). Errors name the
// setting as Fabric's do, and the traffic's keys (workload.GenSettings).
func (s Settings) Traffic(f *topo.Fabric, prefix string) ([]trace.Flow, workload.GenConfig, error) {
	if n := len(f.Hosts()); n < 2 {
		what := fmt.Sprintf("%[1]sleaves/%[1]shosts-per-leaf", prefix)
		if s.Topology != "" {
			what = prefix + "topo " + s.Topology
		}
		return nil, workload.DefaultGen(), fmt.Errorf("%s: the fabric has %s; traffic needs at least 2", what, plural(n, "host"))
	}
	g, err := s.Gen.Config(f, prefix)
	g.Seed = s.Seed
	if err != nil {
		return nil, g, err
	}
	flows, err := Scenario{Name: "sim", Gen: g}.Traffic(f, s.Seed)
	if be := (*BuildError)(nil); errors.As(err, &be) {
		err = be.Err
	}
	if err != nil {
		return nil, g, err
	}
	return flows, g, nil
}

// plural writes n and noun, adding an s unless n is 1: "1 host", "0 hosts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
