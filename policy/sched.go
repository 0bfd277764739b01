package policy

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

// SchedStep is one step of a time schedule (Sched): from At on, the
// setting ECN, given for a 25 Gbps port.
type SchedStep struct {
	// At is the step's time, ps, counted from the start of the
	// scenario's arrival window (scenario.Scenario.ArrivalStart: 2 s in
	// generated traces and flow files), so that a phased scenario's phase
	// boundaries are its phases' summed durations.
	At  int64
	ECN control.ECN
}

// MaxSchedSteps bounds the steps of a schedule.
const MaxSchedSteps = 1000

// Sched is a time-scheduled fixed policy, the form of an oracle schedule:
// from each step's time on, every switch port has the step's setting,
// scaled by the port's rate/25G as Fixed scales its one. It decides from
// the step's time alone (control.Telemetry.Now, which the simulator and
// the testbed both give in the trace's time), so it runs on both fabrics
// alike. The first step must be at 0 and the steps' times must increase.
// Ports start at the first step's setting; a later step takes effect at
// the first control instant at or after its time (so up to one control
// interval late), and lasts until the next step's.
func Sched(steps []SchedStep) Factory {
	return func(f *topo.Fabric, sc scenario.Scenario, _ uint64) (control.Policy, []control.ECN, error) {
		if err := checkSched(steps); err != nil {
			return nil, nil, err
		}
		origin := sc.ArrivalStart()
		p := &schedPolicy{at: make([]int64, len(steps)), ecn: make([][]control.ECN, len(steps))}
		for i, s := range steps {
			p.at[i] = origin + min(s.At, topo.Second*1e6) // a step past 11 days of fabric time never comes
			p.ecn[i] = ScaledECN(f, s.ECN)
		}
		return p, slices.Clone(p.ecn[0]), nil
	}
}

// checkSched checks the steps of a schedule.
func checkSched(steps []SchedStep) error {
	switch {
	case len(steps) == 0:
		return errors.New("sched: no steps")
	case len(steps) > MaxSchedSteps:
		return fmt.Errorf("sched: %d steps, want at most %d", len(steps), MaxSchedSteps)
	case steps[0].At != 0:
		return fmt.Errorf("sched: the first step is at %s, want 0 (the settings the ports start with)", topo.FormatDuration(steps[0].At))
	}
	for i, s := range steps {
		if i > 0 && s.At <= steps[i-1].At {
			return fmt.Errorf("sched: step %d at %s is not after step %d at %s", i, topo.FormatDuration(s.At), i-1, topo.FormatDuration(steps[i-1].At))
		}
		if err := s.ECN.Validate(); err != nil {
			return fmt.Errorf("sched: step %d at %s: %w", i, topo.FormatDuration(s.At), err)
		}
	}
	return nil
}

// schedPolicy is Sched's policy: the steps' absolute times and settings
// per port, and the step in force.
type schedPolicy struct {
	at  []int64
	ecn [][]control.ECN
	k   int
}

// Decide sets every port to the setting of the last step at or before
// t.Now.
func (p *schedPolicy) Decide(t *control.Telemetry, ecn []control.ECN) {
	k := p.k
	for k > 0 && t.Now < p.at[k] {
		k--
	}
	for k+1 < len(p.at) && t.Now >= p.at[k+1] {
		k++
	}
	p.k = k
	copy(ecn, p.ecn[k])
}

// parseSched parses a schedule, T=KMIN_KB,KMAX_KB,PMAX steps separated by
// ':' (the arguments of a sched: spec): T a time ("0", "5ms", "12.5ms",
// "300us"; topo.ParseDelay's units), the setting of a 25 Gbps port as
// static:KMIN_KB,KMAX_KB,PMAX gives it.
func parseSched(args string) ([]SchedStep, error) {
	if args == "" {
		return nil, errors.New("want steps T=KMIN_KB,KMAX_KB,PMAX separated by ':', the first at 0")
	}
	parts := strings.Split(args, ":")
	if len(parts) > MaxSchedSteps {
		return nil, fmt.Errorf("%d steps, want at most %d", len(parts), MaxSchedSteps)
	}
	steps := make([]SchedStep, len(parts))
	for i, part := range parts {
		at, setting, ok := strings.Cut(part, "=")
		if !ok {
			return nil, fmt.Errorf("step %d %q: want T=KMIN_KB,KMAX_KB,PMAX", i, part)
		}
		t, err := parseSchedTime(strings.TrimSpace(at))
		if err != nil {
			return nil, fmt.Errorf("step %d %q: %w", i, part, err)
		}
		e, err := parseSetting(setting)
		if err != nil {
			return nil, fmt.Errorf("step %d %q: %w", i, part, err)
		}
		steps[i] = SchedStep{At: t, ECN: e}
	}
	if err := checkSched(steps); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "sched: "))
	}
	return steps, nil
}

// parseSchedTime parses a step's time: "0", or a duration with a unit.
func parseSchedTime(s string) (int64, error) {
	if s == "0" {
		return 0, nil
	}
	t, err := topo.ParseDelay(s)
	if err != nil {
		return 0, fmt.Errorf("time: %w", err)
	}
	return t, nil
}

// formatSched writes steps as parseSched reads them, in one form: times
// by topo.FormatDuration, numbers in strconv's shortest decimal form.
func formatSched(steps []SchedStep) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = topo.FormatDuration(s.At) + "=" + formatSetting(s.ECN)
	}
	return strings.Join(parts, ":")
}

// formatSetting writes a setting as KMIN_KB,KMAX_KB,PMAX.
func formatSetting(e control.ECN) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(float64(e.KMin)/control.KB) + "," + f(float64(e.KMax)/control.KB) + "," + f(e.PMax)
}

// buildSched is the sched policy of a schedule's spec arguments.
func buildSched(args string) (Factory, error) {
	steps, err := parseSched(args)
	if err != nil {
		return nil, err
	}
	return Sched(steps), nil
}

// canonicalSched writes a schedule's spec arguments in one form
// (formatSched), or as they are if they do not parse.
func canonicalSched(args string) string {
	steps, err := parseSched(args)
	if err != nil {
		return args
	}
	return formatSched(steps)
}
