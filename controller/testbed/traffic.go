package testbed

import (
	"fmt"
	"log/slog"

	"graphcc/internal/fileio"
	"graphcc/scenario"
	"graphcc/trace"
)

// Traffic returns a run's scenario on the session's lab (Scenario) and
// its flows: those of flowsFile, or else generated from the traffic of
// set (scenario.Settings.Traffic at its seed), the incast fitted to the
// lab (FitFanIn; fanInSet: the fan-in was given), a lowered fan-in
// logged. Errors name testbed run's flags.
func (s *Session) Traffic(set scenario.Settings, flowsFile string, fanInSet bool, log *slog.Logger) (scenario.Scenario, []trace.Flow, error) {
	sc, f := s.Scenario(), s.Plan.Fabric
	if flowsFile != "" {
		sc.Description = "from " + flowsFile
		flows, err := trace.LoadFlows(flowsFile, f)
		if err != nil {
			return sc, nil, fmt.Errorf("--flows: %w", err)
		}
		return sc, flows, nil
	}
	if !set.Gen.NoIncast {
		fanIn, err := FitFanIn(set.Gen.IncastFanIn, fanInSet, len(f.Hosts()))
		if err != nil {
			return sc, nil, err
		}
		if fanIn != set.Gen.IncastFanIn {
			log.Warn("the lab is too small for the default incast: lowered --incast-fanin to hosts-1", "hosts", len(f.Hosts()), "from", set.Gen.IncastFanIn, "to", fanIn)
			set.Gen.IncastFanIn = fanIn
		}
	}
	flows, g, err := set.Traffic(f, "--")
	if err != nil {
		return sc, nil, err
	}
	sc.Gen, sc.Description = g, g.Describe()
	return sc, flows, nil
}

// CheckOutputs refuses, before the run, output files of c's policies
// (with several, one file each: PolicyPath) that could not be written or
// would overwrite another (fileio.CheckOutputs), and c's Agents (Check).
func (c *RunConfig) CheckOutputs() error {
	several := len(c.Policies) > 1
	for _, s := range c.Policies {
		o := c.Outputs
		if err := fileio.CheckOutputs(nil, "--summary-out", PolicyPath(o.Summary, s, several), "--fct-out", PolicyPath(o.FCT, s, several),
			"--trace-out", PolicyPath(o.Trace, s, several)); err != nil {
			return err
		}
	}
	return c.Agents.Check()
}
