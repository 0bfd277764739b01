package scenario

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// Scenario is one experiment of the evaluation: a Clos, the links that fail
// in it and the traffic it carries. A Scenario is a recipe; Build turns it
// into a fabric and a flow trace for one seed.
type Scenario struct {
	// Name is the short, stable name the CLI and the reports use.
	Name string
	// Description says in a sentence what the scenario tests and any choice
	// made for it.
	Description string
	// Clos is the fabric before failures, unless Topology is set.
	Clos topo.ClosConfig
	// Topology, if not nil, is the fabric before failures instead of Clos:
	// any fabric, such as one read from an HPCC topology.txt
	// (topo.ReadTopology), named by TopologyName in descriptions. It is
	// only read, so scenarios and their runs may share it.
	Topology     *topo.Fabric
	TopologyName string
	// FailRandom is the number of random leaf-spine (switch-switch) links
	// failed, drawn from the seed (topo.Fabric.FailRandom).
	FailRandom int
	// Fail names links failed in every run ("leaf0-spine1"), before the
	// random ones.
	Fail []string
	// Gen is the traffic; its Seed is ignored (Build sets it). With
	// Gen.Phases the traffic is phased: the phases one after another.
	Gen workload.GenConfig
	// Trace, if not nil, is the traffic instead of Gen's: a recorded
	// trace cut into windows, seed k playing window k (1-based, see
	// Traffic), named by TraceName in descriptions. Gen then holds only
	// the windows' length as its Duration. It is only read, so scenarios
	// and their runs may share it.
	Trace     *trace.Windows
	TraceName string
	// Events are links failing and coming back during every run, in time
	// order (see LinkEvents). The links are named on the fabric after
	// Fail (and FailRandom, per seed).
	Events []Event
	// HeldOut marks a scenario kept out of every training set (graphcc
	// train refuses it, CheckTraining): it checks a learned policy on
	// traffic it has never seen.
	HeldOut bool
	// heldOutWhy, if set, is why CheckTraining refuses a HeldOut scenario
	// (a family's evaluation draw says which draw it is).
	heldOutWhy string
}

// CheckTraining refuses a scenario that no training may see (HeldOut).
func (s Scenario) CheckTraining() error {
	switch {
	case s.HeldOut && s.heldOutWhy != "":
		return fmt.Errorf("scenario %s is held out: %s", s.Name, s.heldOutWhy)
	case s.HeldOut:
		return fmt.Errorf("scenario %s is held out: it checks learned policies on traffic they have not seen, so no training may use it (evaluate on it; train on another)", s.Name)
	}
	return nil
}

// Build makes the fabric and the flow trace of s for seed: Fabric, then
// Traffic on it. The same seed always gives the same fabric and flows; the
// random failures use their own PCG stream of the seed, exactly as `graphcc
// sim --fail-random K --seed SEED` draws them (the CLI builds its fabric and
// traffic with this very code), so a run of a scenario can be reproduced
// with the scenario flags. Its errors are *BuildError.
func (s Scenario) Build(seed uint64) (*topo.Fabric, []trace.Flow, error) {
	f, err := s.Fabric(seed)
	if err != nil {
		return nil, nil, err
	}
	flows, err := s.Traffic(f, seed)
	if err != nil {
		return nil, nil, err
	}
	return f, flows, nil
}

// Fabric makes the fabric of s for seed: the Clos (or Topology), the named
// failures, then FailRandom random leaf-spine failures drawn from seed.
func (s Scenario) Fabric(seed uint64) (*topo.Fabric, error) {
	f, err := s.FixedFabric()
	if err != nil {
		return nil, err
	}
	if s.FailRandom < 0 {
		return nil, &BuildError{s.Name, "FailRandom", fmt.Errorf("FailRandom %d is negative", s.FailRandom)}
	}
	if s.FailRandom > 0 {
		if f, err = f.FailRandom(s.FailRandom, seed); err != nil {
			return nil, &BuildError{s.Name, "FailRandom", err}
		}
	}
	return f, nil
}

// Traffic generates the flows of s on fabric f (one of s's, from Fabric)
// for seed: workload.Generate with Gen and Gen.Seed = seed. With a Trace,
// they are instead its window seed (seed k plays window k, from 1; a seed
// past the last window is an error that counts them), shifted to start at
// ArrivalStart as generated traffic does.
func (s Scenario) Traffic(f *topo.Fabric, seed uint64) ([]trace.Flow, error) {
	if s.Trace != nil {
		flows, err := s.Trace.Window(seed)
		if err != nil {
			return nil, &BuildError{s.Name, "Trace", fmt.Errorf("%s: %w", s.TraceName, err)}
		}
		for i := range flows {
			flows[i].Start += s.ArrivalStart()
		}
		return flows, nil
	}
	g := s.Gen
	g.Seed = seed
	flows, err := workload.Generate(f, g)
	if err != nil {
		return nil, &BuildError{s.Name, "Gen", err}
	}
	return flows, nil
}

// A BuildError is an error of Build, Fabric or FixedFabric: the field of
// the Scenario at fault (Clos, Topology, Fail, FailRandom or Gen) and
// why, so that a caller can name its own setting of that field (the CLI
// names its flag).
type BuildError struct {
	Scenario string
	Field    string
	Err      error
}

// Error returns "scenario NAME: ERR".
func (e *BuildError) Error() string { return "scenario " + e.Scenario + ": " + e.Err.Error() }

func (e *BuildError) Unwrap() error { return e.Err }

// FixedFabric returns the fabric every seed of s shares: BaseFabric with
// the named failures (Fail), before the random ones (FailRandom).
func (s Scenario) FixedFabric() (*topo.Fabric, error) {
	f, err := s.BaseFabric()
	if err != nil {
		field := "Clos"
		if s.Topology != nil {
			field = "Topology"
		}
		return nil, &BuildError{s.Name, field, err}
	}
	if len(s.Fail) > 0 {
		if f, err = f.FailLinks(s.Fail...); err != nil {
			return nil, &BuildError{s.Name, "Fail", err}
		}
	}
	return f, nil
}

// BaseFabric returns the fabric of s before any failure: Topology if set,
// else the Clos.
func (s Scenario) BaseFabric() (*topo.Fabric, error) {
	if s.Topology != nil {
		return s.Topology, nil
	}
	return topo.Clos(s.Clos)
}

// Describe is a one-line summary of the fabric and traffic of s, for report
// headers: "FB_Hadoop 60 % + 16:1 incasts of 64 KB every 1 ms, 25 ms of
// arrivals; Clos of 4 leaves x 6 hosts, 2 spines". Phased traffic lists its
// phases: "in phases: 10 ms of FB_Hadoop 30 %, no incasts; 5 ms of
// WebSearch 80 %, no incasts; 15 ms of arrivals; Clos ...".
func (s Scenario) Describe() string {
	g := s.Gen
	what := describeTraffic(g.Workload, g.Load, g.Incast) + ", "
	if s.Trace != nil {
		what = fmt.Sprintf("the flows of %s in %d windows (seed k plays window k), ", s.TraceName, s.Trace.Count())
	}
	if len(g.Phases) > 0 {
		parts := make([]string, len(g.Phases))
		for i, p := range g.Phases {
			parts[i] = DescribePhase(p)
		}
		what = "in phases: " + strings.Join(parts, "; ") + "; "
	}
	what += spaced(topo.FormatDuration(g.Duration)) + " of arrivals; "
	if t := s.Topology; t != nil {
		name := s.TopologyName
		if name == "" {
			name = "a topology"
		}
		what += fmt.Sprintf("%s (%d hosts, %d switches, %d links)", name, len(t.Hosts()), len(t.Nodes)-len(t.Hosts()), len(t.Links))
	} else {
		what += fmt.Sprintf("Clos of %d leaves x %d hosts, %d spines", s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.Spines)
	}
	var fails []string
	if len(s.Fail) > 0 {
		fails = append(fails, "failed "+strings.Join(s.Fail, ","))
	}
	if s.FailRandom > 0 {
		fails = append(fails, fmt.Sprintf("%d random leaf-spine link failure(s) per seed", s.FailRandom))
	}
	if len(s.Events) > 0 {
		fails = append(fails, describeEvents(s.Events))
	}
	if len(fails) > 0 {
		what += " (" + strings.Join(fails, ", ") + ")"
	}
	return what
}

// describeTraffic is Describe's words for one workload at a load with its
// incasts: "FB_Hadoop 60 % + 16:1 incasts of 64 KB every 1 ms" or
// "WebSearch 80 %, no incasts".
func describeTraffic(w *workload.CDF, load float64, in workload.IncastConfig) string {
	name := "?"
	if w != nil {
		name = WorkloadTitle(w.Name)
	}
	// rounded to 1e-9 %, so that a load of 0.55 is "55 %", not the
	// product's 55.00000000000001
	what := fmt.Sprintf("%s %g %%", name, math.Round(100*load*1e9)/1e9)
	if in.Period > 0 {
		return what + fmt.Sprintf(" + %d:1 incasts of %g KB every %s", in.FanIn, float64(in.Size)/1000, spaced(topo.FormatDuration(in.Period)))
	}
	return what + ", no incasts"
}

// workloadTitles are the usual names of the built-in workloads.
var workloadTitles = map[string]string{
	"fb_hadoop": "FB_Hadoop", "websearch": "WebSearch", "alistorage": "AliStorage2019", "googlerpc": "GoogleRPC2008",
}

// WorkloadTitle returns the usual name of a built-in workload
// ("fb_hadoop" -> "FB_Hadoop"), or name itself for any other.
func WorkloadTitle(name string) string {
	if t, ok := workloadTitles[name]; ok {
		return t
	}
	return name
}

// spaced puts a space between a duration's number and its unit: "1 ms".
func spaced(d string) string {
	i := strings.IndexFunc(d, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	if i <= 0 {
		return d
	}
	return d[:i] + " " + d[i:]
}

// Default is the GraphCC training scenario, fb60-incast:
// FB_Hadoop at 60 % load with a 16:1 incast of 64 KB every 1 ms, 25 ms of
// arrivals, on the GraphCC Clos (topo.DefaultClos).
func Default() Scenario {
	return Scenario{
		Name:        "fb60-incast",
		Description: "the training scenario: FB_Hadoop at 60 % load with periodic 16:1 incasts",
		Clos:        topo.DefaultClos(),
		Gen:         workload.DefaultGen(),
	}
}

// Suite returns the scenarios of the GraphCC paper's evaluation, fresh
// copies each call, in a fixed order:
//
//   - fb60-incast: the training scenario (DefaultScenario).
//   - fb60: FB_Hadoop 60 % without incasts.
//   - websearch60, alistorage60, googlerpc60: the unseen workloads at 60 %,
//     without incasts (the workload is the only change from fb60).
//   - fb80, fb90: high loads, FB_Hadoop without incasts.
//   - fail1, fail2: the training traffic with one and two random leaf-spine
//     links failed; the links are drawn from the seed, so each seed fails
//     different links.
//   - flat8, flat12: the training traffic on flatter networks, 8 and 12
//     hosts per leaf (32 and 48 hosts, the same 4 leaves and 2 spines).
//   - day, day-b, day-held: phased traffic that moves between the four
//     workloads at loads from 30 to 90 %, with and without incasts, in
//     phases of 2 to 20 ms (35 to 40 ms of arrivals). day-held is held
//     out (HeldOut): no training may use it.
//
// Every scenario but the phased ones has 25 ms of arrivals. googlerpc60 keeps them too: its
// tiny flows make about 390,000 flows per run, but that costs only about
// 2.3 s of simulation on one core (measured; fb60-incast takes 1.3 s), so
// no shorter window is needed.
func Suite() []Scenario {
	noIncast := func(s Scenario) Scenario {
		s.Gen.Incast.Period = 0
		return s
	}
	workload := func(s Scenario, name string) Scenario {
		w, err := workload.Builtin(name)
		if err != nil {
			panic(err) // the embedded files are part of the build
		}
		s.Gen.Workload = w
		return s
	}
	load := func(s Scenario, l float64) Scenario {
		s.Gen.Load = l
		return s
	}
	named := func(s Scenario, name, desc string) Scenario {
		s.Name, s.Description = name, desc
		return s
	}
	base := Default
	fail := func(k int) Scenario {
		s := base()
		s.FailRandom = k
		return s
	}
	flat := func(h int) Scenario {
		s := base()
		s.Clos.HostsPerLeaf = h
		return s
	}
	return append([]Scenario{
		base(),
		named(noIncast(base()), "fb60", "FB_Hadoop at 60 % load without incasts"),
		named(workload(noIncast(base()), "websearch"), "websearch60", "unseen workload: WebSearch at 60 % load, no incasts"),
		named(workload(noIncast(base()), "alistorage"), "alistorage60", "unseen workload: AliStorage2019 at 60 % load, no incasts"),
		named(workload(noIncast(base()), "googlerpc"), "googlerpc60",
			"unseen workload: GoogleRPC2008 at 60 % load, no incasts; about 390k flows per run, kept at 25 ms of arrivals (about 2.3 s per simulation)"),
		named(load(noIncast(base()), 0.8), "fb80", "high load: FB_Hadoop at 80 %, no incasts"),
		named(load(noIncast(base()), 0.9), "fb90", "high load: FB_Hadoop at 90 %, no incasts"),
		named(fail(1), "fail1", "the training traffic with one random leaf-spine link failed (drawn per seed)"),
		named(fail(2), "fail2", "the training traffic with two random leaf-spine links failed (drawn per seed)"),
		named(flat(8), "flat8", "flatter network: 8 hosts per leaf (32 hosts), the training traffic"),
		named(flat(12), "flat12", "flatter network: 12 hosts per leaf (48 hosts), the training traffic"),
	}, phasedSuite()...)
}

// Names lists the names of Suite, in its order.
func Names() []string {
	suite := Suite()
	names := make([]string, len(suite))
	for i, s := range suite {
		names[i] = s.Name
	}
	return names
}

// ByName returns the scenario of Suite named name, or the draw of a
// family it names ("family-17", "family:17"; ParseFamilyDraws).
func ByName(name string) (Scenario, error) {
	for _, s := range Suite() {
		if s.Name == name {
			return s, nil
		}
	}
	if d, ok, err := ParseFamilyDraws(name); ok {
		return d.one(name, err)
	}
	if name == "" {
		return Scenario{}, errors.New("empty scenario name (known: " + strings.Join(Names(), ", ") + ")")
	}
	return Scenario{}, fmt.Errorf("unknown scenario %q (known: %s; and the draws of %s and %s, such as %s-17)", name, strings.Join(Names(), ", "), FamilyName, FamilyHeldName, FamilyName)
}
