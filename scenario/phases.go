package scenario

import (
	"slices"
	"strings"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// SizeCDF returns the flow-size distribution of the background flows of
// s: its workload, or for phased traffic the mixture of its phases'
// workloads (workload.Mix), each phase weighted by the background flows it
// is expected to make (its load times its duration over its mean flow
// size), named "mix of FB_Hadoop, WebSearch" after the workloads in the
// order of their first phase; for a recorded trace, the sizes of all its
// flows (traceCDF). It is nil if s has no workload.
func (s Scenario) SizeCDF() *workload.CDF {
	if s.Trace != nil {
		return traceCDF(s.TraceName, s.Trace.Flows())
	}
	if len(s.Gen.Phases) == 0 {
		return s.Gen.Workload
	}
	var cdfs []*workload.CDF
	var weights []float64
	var names []string
	for _, p := range s.Gen.Phases {
		if p.Workload == nil || !(p.Workload.Mean() > 0) {
			return nil
		}
		cdfs = append(cdfs, p.Workload)
		weights = append(weights, p.Load*float64(p.Duration)/p.Workload.Mean())
		if n := WorkloadTitle(p.Workload.Name); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	if len(names) == 1 {
		return cdfs[0]
	}
	m, err := workload.Mix("mix of "+strings.Join(names, ", "), cdfs, weights)
	if err != nil {
		return nil
	}
	return m
}

// MeanLoad returns the background load of s averaged over its arrival
// window: its Load, or for phased traffic its phases' loads weighted by
// their durations.
func (s Scenario) MeanLoad() float64 {
	if len(s.Gen.Phases) == 0 {
		return s.Gen.Load
	}
	sum, total := 0.0, 0.0
	for _, p := range s.Gen.Phases {
		sum += p.Load * float64(p.Duration)
		total += float64(p.Duration)
	}
	return sum / total
}

// ArrivalStart returns where the arrival window of s starts, ps: Gen.Start,
// or for a scenario without generated traffic (its flows read from a
// file) workload.DefaultStart, HPCC's 2 s, where flow files start. Times
// that count from the start of a trace (a sched: policy's) count from it.
func (s Scenario) ArrivalStart() int64 {
	if s.Gen.Workload == nil && len(s.Gen.Phases) == 0 {
		return workload.DefaultStart
	}
	return s.Gen.Start
}

// PhaseStarts returns where the phases of s start, ps from the start of
// its arrival window (ArrivalStart), in order, the first 0; nil if s is
// not phased. With ArrivalStart they split its flows by the phase they
// start in (metrics.Phases).
func (s Scenario) PhaseStarts() []int64 {
	if len(s.Gen.Phases) == 0 {
		return nil
	}
	out := make([]int64, len(s.Gen.Phases))
	var at int64
	for i, p := range s.Gen.Phases {
		out[i] = at
		at += p.Duration // the phases' total fits (GenConfig.Check)
	}
	return out
}

// DescribePhase is Describe's words for one phase: "5 ms of GoogleRPC2008
// 90 %, no incasts".
func DescribePhase(p workload.Phase) string {
	return spaced(topo.FormatDuration(p.Duration)) + " of " + describeTraffic(p.Workload, p.Load, p.Incast)
}

// phase is a phase of a built-in phased scenario: ms milliseconds of the
// built-in workload at load, with the GraphCC setup's 16:1 incasts if
// incast is set.
func phase(ms int64, name string, load float64, incast bool) workload.Phase {
	w, err := workload.Builtin(name)
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	p := workload.Phase{Duration: ms * topo.Millisecond, Workload: w, Load: load}
	if incast {
		p.Incast = workload.DefaultIncast()
	}
	return p
}

// phased is a built-in phased scenario on the GraphCC Clos. Its top-level
// traffic fields stay the training scenario's (what a scenario file's
// phases would inherit); its Duration is the phases' total.
func phased(name, desc string, heldOut bool, phases ...workload.Phase) Scenario {
	s := Default()
	s.Name, s.Description, s.HeldOut = name, desc, heldOut
	s.Gen.Phases = phases
	s.Gen.Duration = workload.PhasesDuration(phases)
	return s
}

// phasedSuite returns the built-in phased scenarios (Suite), fresh copies.
// Each moves between the four workloads at loads from 30 to 90 %, with
// phases of 2 to 20 ms; day and day-b are for training and evaluation,
// day-held is held out of every training set.
func phasedSuite() []Scenario {
	return []Scenario{
		phased("day", "phased traffic, a compressed day: FB_Hadoop 30 % -> WebSearch 80 % -> AliStorage 60 % + incasts -> GoogleRPC 90 % -> FB_Hadoop 80 % + incasts, 5 to 10 ms each", false,
			phase(10, "fb_hadoop", 0.3, false),
			phase(5, "websearch", 0.8, false),
			phase(10, "alistorage", 0.6, true),
			phase(5, "googlerpc", 0.9, false),
			phase(10, "fb_hadoop", 0.8, true)),
		phased("day-b", "phased traffic, day's variant: other order, loads and durations (2 to 20 ms)", false,
			phase(4, "googlerpc", 0.6, false),
			phase(20, "fb_hadoop", 0.8, true),
			phase(8, "websearch", 0.6, false),
			phase(2, "alistorage", 0.8, true),
			phase(6, "fb_hadoop", 0.3, false)),
		phased("day-held", "phased traffic held out of every training set (graphcc train refuses it): six phases of 2 to 12 ms in an order no training scenario has", true,
			phase(6, "websearch", 0.5, false),
			phase(3, "googlerpc", 0.8, false),
			phase(12, "alistorage", 0.4, true),
			phase(2, "fb_hadoop", 0.9, false),
			phase(8, "googlerpc", 0.6, false),
			phase(4, "websearch", 0.9, false)),
	}
}

// traceCDF is the distribution of the sizes of flows (not empty), named
// name: its percentiles 0 to 100, the p-th the size of the flow of rank
// ceil(p/100 · (n-1)) in increasing size.
func traceCDF(name string, flows []trace.Flow) *workload.CDF {
	sizes := make([]int64, len(flows))
	for i, fl := range flows {
		sizes[i] = fl.Size
	}
	slices.Sort(sizes)
	c := &workload.CDF{Name: name}
	for p := 0; p <= 100; p++ {
		i := (p*(len(sizes)-1) + 99) / 100
		c.Points = append(c.Points, workload.CDFPoint{Bytes: float64(sizes[i]), Percent: float64(p)})
	}
	return c
}
