package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/spf13/pflag"

	"graphcc/internal/fileio"
	"graphcc/scenario"
	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// scenarioFlags are the flags that describe a fabric and its traffic
// (scenario.Settings), shared by gen, sim, bench and testbed. Their
// defaults are the GraphCC training scenario.
type scenarioFlags struct{ scenario.Settings }

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
func defaultScenario() scenarioFlags { return scenarioFlags{scenario.DefaultSettings()} }

// add registers the fabric and traffic groups, less those mask omits
// (omitFabric, omitTraffic), and --seed, with s's values as defaults.
func (s *scenarioFlags) add(fs *pflag.FlagSet, mask flagMask) {
	if mask&omitFabric == 0 {
		s.addFabricFlags(fs)
	}
	if mask&omitTraffic == 0 {
		s.addTrafficFlags(fs)
	}
	fs.Uint64Var(&s.Seed, "seed", s.Seed, "seed of the traffic, of --fail-random and of the simulation's ECN marking draws (ECMP uses HPCC's per-switch hash seeds)")
}

// addFabricFlags registers the fabric flags.
func (s *scenarioFlags) addFabricFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.Topology, "topo", "", "HPCC topology.txt to use instead of the Clos (the Clos flags are then ignored; --buffer-mb still applies)")
	fs.IntVar(&s.Clos.Leaves, "leaves", s.Clos.Leaves, "Clos: leaf switches")
	fs.IntVar(&s.Clos.Spines, "spines", s.Clos.Spines, "Clos: spine switches (each leaf has one link to every spine)")
	fs.IntVar(&s.Clos.HostsPerLeaf, "hosts-per-leaf", s.Clos.HostsPerLeaf, "Clos: hosts per leaf")
	fs.StringVar(&s.Clos.HostRate, "host-rate", s.Clos.HostRate, "Clos: host-leaf link rate (bps, Kbps, Mbps, Gbps, Tbps)")
	fs.StringVar(&s.Clos.FabricRate, "fabric-rate", s.Clos.FabricRate, "Clos: leaf-spine link rate")
	fs.StringVar(&s.Clos.LinkDelay, "link-delay", s.Clos.LinkDelay, "Clos: one-way propagation delay of every link (s, ms, us, ns, ps)")
	fs.Float64Var(&s.Clos.BufferMB, "buffer-mb", s.Clos.BufferMB, "shared buffer per switch, MiB (2^20 bytes, HPCC's BUFFER_SIZE)")
	fs.StringSliceVar(&s.Fail, "fail", nil, "fail these links, by name (Clos: h0-leaf0, leaf0-spine1; --topo: n0-n24); comma-separated or repeated")
	fs.IntVar(&s.FailRandom, "fail-random", 0, "fail K random leaf-spine (switch-switch) links, drawn from --seed, never disconnecting a host pair")
}

// addTrafficFlags registers the traffic flags.
func (s *scenarioFlags) addTrafficFlags(fs *pflag.FlagSet) {
	fs.StringVar(&s.Gen.Workload, "workload", s.Gen.Workload, "flow-size distribution: "+strings.Join(workload.Names(), ", ")+", or a CDF file (HPCC format)")
	fs.Float64Var(&s.Gen.Load, "load", s.Gen.Load, "offered background load per host link, in (0, 1]")
	fs.StringVar(&s.Gen.Duration, "duration", s.Gen.Duration, "length of the arrival window (flows keep running after it)")
	fs.StringVar(&s.Gen.IncastPeriod, "incast-period", s.Gen.IncastPeriod, "time between N:1 incasts; 0 disables them")
	fs.IntVar(&s.Gen.IncastFanIn, "incast-fanin", s.Gen.IncastFanIn, "distinct random senders per incast (at most hosts-1)")
	fs.Int64Var(&s.Gen.IncastSize, "incast-size", s.Gen.IncastSize, "bytes per incast sender")
	fs.BoolVar(&s.Gen.NoIncast, "no-incast", false, "no incasts (same as --incast-period 0)")
}

// build returns the scenario of the fabric flags, without traffic, and
// its fabric at --seed (scenario.Settings.Fabric), warning of the Clos
// flags given beside --topo.
func (s *scenarioFlags) build(fs flagChanger, log *slog.Logger) (scenario.Scenario, *topo.Fabric, error) {
	s.warnIgnored(fs, log)
	return s.Fabric("sim", "--")
}

// warnIgnored warns of the Clos flags given beside --topo.
func (s *scenarioFlags) warnIgnored(fs flagChanger, log *slog.Logger) {
	for _, n := range closFlagNames() {
		if s.Topology != "" && fs.Changed(n) {
			log.Warn("flag ignored with --topo", "flag", "--"+n)
		}
	}
}

// generate returns the flows of the traffic flags on fabric f at --seed
// and their traffic (scenario.Settings.Traffic), refusing --no-incast
// beside an incast flag (fs tells which were given).
func (s *scenarioFlags) generate(f *topo.Fabric, fs flagChanger) ([]trace.Flow, workload.GenConfig, error) {
	if err := s.checkIncast(fs); err != nil {
		return nil, workload.DefaultGen(), err
	}
	return s.Traffic(f, "--")
}

// checkIncast refuses --no-incast beside an incast flag.
func (s *scenarioFlags) checkIncast(fs flagChanger) error {
	for _, n := range []string{"incast-period", "incast-fanin", "incast-size"} {
		if s.Gen.NoIncast && fs.Changed(n) {
			return fmt.Errorf("--no-incast and --%s: choose one (--incast-period 0 also disables incasts)", n)
		}
	}
	return nil
}

// traceFlags are the flags of gen's and sim's trace: an eval scenario's
// at --seed (--scenario, --scenario-file), or the fabric flags' with the
// traffic flags' (or, for sim, --flows).
type traceFlags struct {
	sc           scenarioFlags
	scenario     string
	scenarioFile scenarioFileFlag
}

// traceRun is the trace of traceFlags: its scenario, fabric, flows and
// traffic (none for a flow file), and the fabric and scenario described.
type traceRun struct {
	sc       scenario.Scenario
	f        *topo.Fabric
	flows    []trace.Flow
	gen      workload.GenConfig
	desc     string
	scenario bool // of --scenario
}

// trace builds the trace of the flags: --scenario's (refusing the flags
// it replaces, and flowsFile), or the fabric flags' with the flows of
// flowsFile (warning of the traffic flags then ignored) or else of the
// traffic flags.
func (t *traceFlags) trace(fs flagChanger, flowsFile string, log *slog.Logger) (traceRun, error) {
	var r traceRun
	var err error
	if t.scenario != "" || t.scenarioFile.path != "" {
		if r.sc, err = t.pickScenario(fs, flowsFile); err != nil {
			return r, err
		}
		if r.f, r.flows, err = r.sc.Build(t.sc.Seed); err != nil {
			return r, fmt.Errorf("--scenario %s: %w", r.sc.Name, err)
		}
		r.gen, r.scenario = r.sc.Gen, true
		r.desc = fmt.Sprintf("scenario %s, seed %d: %s", r.sc.Name, t.sc.Seed, r.sc.Describe())
		return r, nil
	}
	if r.sc, r.f, err = t.sc.build(fs, log); err != nil {
		return r, err
	}
	r.desc = r.sc.DescribeFabric(r.f)
	if flowsFile == "" {
		r.flows, r.gen, err = t.sc.generate(r.f, fs)
		return r, err
	}
	for _, n := range trafficFlagNames() {
		if fs.Changed(n) {
			log.Warn("flag ignored with --flows", "flag", "--"+n)
		}
	}
	r.flows, err = readFlows(flowsFile, r.f)
	return r, err
}

// pickScenario resolves --scenario and --scenario-file, refusing the
// fabric and traffic flags a scenario replaces, and flowsFile.
func (t *traceFlags) pickScenario(fs flagChanger, flowsFile string) (scenario.Scenario, error) {
	if flowsFile != "" {
		return scenario.Scenario{}, errors.New("--scenario and --flows both give the traffic: choose one")
	}
	for _, n := range append(fabricFlagNames(), trafficFlagNames()...) {
		if fs.Changed(n) {
			return scenario.Scenario{}, fmt.Errorf("--scenario sets the fabric and traffic: drop --%s (or write a scenario file with it)", n)
		}
	}
	set, err := t.scenarioFile.load()
	if err != nil {
		return scenario.Scenario{}, err
	}
	return set.Pick(t.scenario, "--")
}

// writeOutput writes path atomically through write, naming flag on
// error; without a path ("") it writes nothing.
func writeOutput(flag, path string, write func(w io.Writer) error) error {
	if path == "" {
		return nil
	}
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

// resolve loads the scenario file and resolves spec, the list of the
// flag named flag (scenario.Set.Resolve). Without that flag a scenario
// file's scenarios stand in for it: all of them (all), or its only one.
func (s *scenarioFileFlag) resolve(fs flagChanger, flag, spec string, all bool) ([]scenario.Scenario, error) {
	set, err := s.load()
	switch {
	case err != nil:
		return nil, err
	case s.path != "" && !fs.Changed(flag) && all:
		return set.File, nil
	case s.path != "" && !fs.Changed(flag):
		sc, err := set.Pick("", "--")
		if err != nil {
			return nil, err
		}
		return []scenario.Scenario{sc}, nil
	}
	scs, err := set.Resolve(spec)
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, spec, err)
	}
	return scs, nil
}
