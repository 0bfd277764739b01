package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"graphcc/internal/fileio"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// scenarioFlags are the flags that describe a fabric and its traffic, shared
// by gen, sim and bench. Their defaults are the GraphCC training scenario.
type scenarioFlags struct {
	// fabric
	topoFile   string
	clos       topo.ClosSettings
	fail       []string
	failRandom int

	// traffic
	workload     string
	load         float64
	duration     string
	incastPeriod string
	incastFanIn  int
	incastSize   int64
	noIncast     bool

	seed uint64
}

// closFlagNames are the flags that --topo overrides.
func closFlagNames() []string {
	return []string{"leaves", "spines", "hosts-per-leaf", "host-rate", "fabric-rate", "link-delay"}
}

// trafficFlagNames are the flags that describe generated traffic.
func trafficFlagNames() []string {
	return []string{"workload", "load", "duration", "incast-period", "incast-fanin", "incast-size", "no-incast"}
}

// fabricFlagNames are the flags addFabricFlags registers.
func fabricFlagNames() []string {
	return []string{"topo", "leaves", "spines", "hosts-per-leaf", "host-rate", "fabric-rate", "link-delay", "buffer-mb", "fail", "fail-random"}
}

// defaultScenario returns the flag values of the GraphCC training scenario.
func defaultScenario() scenarioFlags {
	g := workload.DefaultGen()
	return scenarioFlags{
		clos:         topo.ClosSettingsOf(topo.DefaultClos()),
		workload:     g.Workload.Name,
		load:         g.Load,
		duration:     topo.FormatDuration(g.Duration),
		incastPeriod: topo.FormatDuration(g.Incast.Period),
		incastFanIn:  g.Incast.FanIn,
		incastSize:   g.Incast.Size,
		seed:         g.Seed,
	}
}

// add registers the fabric and traffic groups, less those mask omits
// (omitFabric, omitTraffic), and --seed, with s's values as defaults.
func (s *scenarioFlags) add(fs *pflag.FlagSet, mask flagMask) {
	if mask&omitFabric == 0 {
		s.addFabricFlags(fs)
	}
	if mask&omitTraffic == 0 {
		s.addTrafficFlags(fs)
	}
	fs.Uint64Var(&s.seed, "seed", s.seed, "seed of the traffic, of --fail-random and of the simulation's ECN marking draws (ECMP uses HPCC's per-switch hash seeds)")
}

// addFabricFlags registers the fabric flags.
func (s *scenarioFlags) addFabricFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.topoFile, "topo", "", "HPCC topology.txt to use instead of the Clos (the Clos flags are then ignored; --buffer-mb still applies)")
	fs.IntVar(&s.clos.Leaves, "leaves", s.clos.Leaves, "Clos: leaf switches")
	fs.IntVar(&s.clos.Spines, "spines", s.clos.Spines, "Clos: spine switches (each leaf has one link to every spine)")
	fs.IntVar(&s.clos.HostsPerLeaf, "hosts-per-leaf", s.clos.HostsPerLeaf, "Clos: hosts per leaf")
	fs.StringVar(&s.clos.HostRate, "host-rate", s.clos.HostRate, "Clos: host-leaf link rate (bps, Kbps, Mbps, Gbps, Tbps)")
	fs.StringVar(&s.clos.FabricRate, "fabric-rate", s.clos.FabricRate, "Clos: leaf-spine link rate")
	fs.StringVar(&s.clos.LinkDelay, "link-delay", s.clos.LinkDelay, "Clos: one-way propagation delay of every link (s, ms, us, ns, ps)")
	fs.Float64Var(&s.clos.BufferMB, "buffer-mb", s.clos.BufferMB, "shared buffer per switch, MiB (2^20 bytes, HPCC's BUFFER_SIZE)")
	fs.StringSliceVar(&s.fail, "fail", nil, "fail these links, by name (Clos: h0-leaf0, leaf0-spine1; --topo: n0-n24); comma-separated or repeated")
	fs.IntVar(&s.failRandom, "fail-random", 0, "fail K random leaf-spine (switch-switch) links, drawn from --seed, never disconnecting a host pair")
}

// addTrafficFlags registers the traffic flags.
func (s *scenarioFlags) addTrafficFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.workload, "workload", s.workload, "flow-size distribution: "+strings.Join(workload.Names(), ", ")+", or a CDF file (HPCC format)")
	fs.Float64Var(&s.load, "load", s.load, "offered background load per host link, in (0, 1]")
	fs.StringVar(&s.duration, "duration", s.duration, "length of the arrival window (flows keep running after it)")
	fs.StringVar(&s.incastPeriod, "incast-period", s.incastPeriod, "time between N:1 incasts; 0 disables them")
	fs.IntVar(&s.incastFanIn, "incast-fanin", s.incastFanIn, "distinct random senders per incast (at most hosts-1)")
	fs.Int64Var(&s.incastSize, "incast-size", s.incastSize, "bytes per incast sender")
	fs.BoolVar(&s.noIncast, "no-incast", false, "no incasts (same as --incast-period 0)")
}

// build returns the scenario of the fabric flags, without traffic (Gen),
// and its fabric at --seed (scenario.Scenario.Fabric): the --topo file or
// the Clos, then the --fail and --fail-random failures.
func (s *scenarioFlags) build(fs flagChanger, log *slog.Logger) (scenario.Scenario, *topo.Fabric, error) {
	sc := scenario.Scenario{Name: "sim", Fail: s.fail, FailRandom: s.failRandom}
	if s.topoFile != "" {
		for _, n := range closFlagNames() {
			if fs.Changed(n) {
				log.Warn("flag ignored with --topo", "flag", "--"+n)
			}
		}
		buf, err := s.clos.BufferBytes("--")
		if err != nil {
			return sc, nil, err
		}
		file, err := os.Open(s.topoFile)
		if err != nil {
			return sc, nil, fmt.Errorf("--topo: %w", err)
		}
		defer file.Close()
		if sc.Topology, err = topo.ReadTopology(file, s.topoFile, buf); err != nil {
			return sc, nil, fmt.Errorf("--topo: %w", err)
		}
		sc.TopologyName = s.topoFile
	} else {
		var err error
		if sc.Clos, err = s.clos.Config("--"); err != nil {
			return sc, nil, err
		}
	}
	f, err := sc.Fabric(s.seed)
	var be *scenario.BuildError
	if !errors.As(err, &be) {
		return sc, f, err
	}
	switch be.Field {
	case "Clos":
		return sc, nil, fmt.Errorf("--leaves/--spines/--hosts-per-leaf: %w", be.Err)
	case "Fail":
		return sc, nil, fmt.Errorf("--fail %s: %w", strings.Join(s.fail, ","), be.Err)
	case "FailRandom":
		if s.failRandom < 0 {
			return sc, nil, fmt.Errorf("--fail-random %d: must not be negative", s.failRandom)
		}
		return sc, nil, fmt.Errorf("--fail-random %d: %w", s.failRandom, be.Err)
	}
	return sc, nil, err
}

// genConfig returns the traffic of the flags for fabric f; fs tells which
// flags were given, to refuse --no-incast beside an incast flag.
func (s *scenarioFlags) genConfig(f *topo.Fabric, fs flagChanger) (workload.GenConfig, error) {
	g := workload.DefaultGen()
	if s.noIncast {
		for _, n := range []string{"incast-period", "incast-fanin", "incast-size"} {
			if fs.Changed(n) {
				return g, fmt.Errorf("--no-incast and --%s: choose one (--incast-period 0 also disables incasts)", n)
			}
		}
	}
	if n := len(f.Hosts()); n < 2 {
		what := "--leaves/--hosts-per-leaf"
		if s.topoFile != "" {
			what = "--topo " + s.topoFile
		}
		return g, fmt.Errorf("%s: the fabric has %s; traffic needs at least 2", what, plural(n, "host"))
	}
	g, err := workload.GenSettings{Workload: s.workload, Load: s.load, Duration: s.duration, IncastPeriod: s.incastPeriod,
		IncastFanIn: s.incastFanIn, IncastSize: s.incastSize, NoIncast: s.noIncast}.Config(f, "--")
	g.Seed = s.seed
	return g, err
}

// generate returns the flows of the flags on fabric f (fs as genConfig):
// those of the scenario of fabric f and the traffic flags
// (scenario.Scenario.Traffic) at --seed.
func (s *scenarioFlags) generate(f *topo.Fabric, fs flagChanger) ([]trace.Flow, workload.GenConfig, error) {
	g, err := s.genConfig(f, fs)
	if err != nil {
		return nil, g, err
	}
	flows, err := scenario.Scenario{Name: "sim", Gen: g}.Traffic(f, s.seed)
	if be := (*scenario.BuildError)(nil); errors.As(err, &be) {
		err = be.Err
	}
	if err != nil {
		return nil, g, err
	}
	return flows, g, nil
}

// writeOutput writes path atomically through write, naming flag on error.
func writeOutput(flag, path string, write func(w io.Writer) error) error {
	if err := fileio.WriteAtomic(path, write); err != nil {
		return fmt.Errorf("--%s: %w", flag, err)
	}
	return nil
}

// scenarioFileFlag is the --scenario-file group of gen, sim, eval, tune
// and train: a YAML file of scenarios whose names join the built-in ones.
type scenarioFileFlag struct {
	path   string
	lookup lookupFunc // the built-in scenarios
}

// add registers --scenario-file; only says that --scenario then defaults
// to the file's only scenario.
func (s *scenarioFileFlag) add(fs *pflag.FlagSet, only bool) {
	help := "YAML file of scenarios of your own (see docs/formats.md, \"Scenario files\"); their names join the built-in ones"
	if only {
		help += "; with it, --scenario defaults to the file's only scenario"
	}
	fs.StringVar(&s.path, "scenario-file", "", help)
}

// load reads the scenario file ("" for none) beside the built-in suite
// (scenario.Set).
func (s *scenarioFileFlag) load() (scenario.Set, error) {
	set, err := scenario.LoadSet(s.path)
	if err != nil {
		return set, fmt.Errorf("--scenario-file: %w", err)
	}
	set.Builtin = s.lookup
	return set, nil
}

// pick returns the scenario of set named name, or with name "" the file's
// only scenario (an error naming them if it holds several).
func pick(set scenario.Set, name string) (scenario.Scenario, error) {
	if name == "" {
		sc, err := set.Only()
		if err != nil {
			return sc, fmt.Errorf("--scenario-file %w: name one with --scenario", err)
		}
		return sc, nil
	}
	sc, err := set.Lookup(name)
	if err != nil {
		return sc, fmt.Errorf("--scenario: %w", err)
	}
	return sc, nil
}

// plural writes n and noun, adding an s unless n is 1: "1 host", "0 hosts".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
