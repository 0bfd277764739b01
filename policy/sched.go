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
// setting ECN, given for a 25 Gbps port, and the hosts' DCQCN constants
// Hosts if set.
type SchedStep struct {
	// At is the step's time, ps, counted from the start of the
	// scenario's arrival window (scenario.Scenario.ArrivalStart: 2 s in
	// generated traces and flow files), so that a phased scenario's phase
	// boundaries are its phases' summed durations.
	At  int64
	ECN control.ECN
	// Hosts are the DCQCN constants of every host's NIC from At on (AI
	// and HAI of a 25 Gbps NIC, scaled by each NIC's rate as +dcqcn:'s
	// are). The zero value sets none: the hosts keep the constants of the
	// last step before that set some, or, before any did, the fabric's own
	// (the hardware's).
	Hosts control.HostParams
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
//
// If a step sets the hosts' DCQCN constants (SchedStep.Hosts), the policy
// also sets them (control.HostDecider): every interval every host's NIC
// gets those of the step in force, or of the last step before it that set
// some, from the same control instant as the switches' setting, in both
// fabrics (as hostreact's). Hosts start on the first step's constants if
// it sets them (control.HostTuner), else on the fabric's own, which they
// keep until a step sets others. Without hosts' constants in any step it
// decides only the switches' settings, as it always did.
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
		if schedHosts(steps) {
			p.hosts, p.hostPorts = make([]control.HostParams, len(steps)), control.HostPorts(f)
			var h control.HostParams // in force: zero before the first step that sets some
			for i, s := range steps {
				if s.Hosts != (control.HostParams{}) {
					h = s.Hosts
				}
				p.hosts[i] = h
			}
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
		if s.Hosts == (control.HostParams{}) {
			continue
		}
		if err := s.Hosts.Validate(); err != nil {
			return fmt.Errorf("sched: step %d at %s: hosts: %w", i, topo.FormatDuration(s.At), err)
		}
	}
	return nil
}

// schedHosts reports whether a step of steps sets the hosts' constants.
func schedHosts(steps []SchedStep) bool {
	return slices.ContainsFunc(steps, func(s SchedStep) bool { return s.Hosts != (control.HostParams{}) })
}

// schedPolicy is Sched's policy: the steps' absolute times and settings
// per port, and the step in force; with hosts' constants in some step,
// those in force at each step (zero before the first that sets some) and
// the hosts' NIC ports.
type schedPolicy struct {
	at        []int64
	ecn       [][]control.ECN
	k         int
	hosts     []control.HostParams // per step; nil without hosts' constants
	hostPorts []topo.PortID
}

// step returns the index of the last step at or before now, and makes it
// the step in force.
func (p *schedPolicy) step(now int64) int {
	k := p.k
	for k > 0 && now < p.at[k] {
		k--
	}
	for k+1 < len(p.at) && now >= p.at[k+1] {
		k++
	}
	p.k = k
	return k
}

// Decide sets every port to the setting of the last step at or before
// t.Now.
func (p *schedPolicy) Decide(t *control.Telemetry, ecn []control.ECN) {
	copy(ecn, p.ecn[p.step(t.Now)])
}

// HostParams returns the first step's hosts' constants, if it sets them
// (control.HostTuner): the hosts start on them.
func (p *schedPolicy) HostParams() (control.HostParams, bool) {
	if p.hosts == nil || p.hosts[0] == (control.HostParams{}) {
		return control.HostParams{}, false
	}
	return p.hosts[0], true
}

// DecidesHosts reports whether a step sets the hosts' constants.
func (p *schedPolicy) DecidesHosts() bool { return p.hosts != nil }

// DecideHosts sets every host's NIC to the constants in force at the
// last step at or before t.Now; before the first step that sets some it
// leaves the hosts as they are.
func (p *schedPolicy) DecideHosts(t *control.Telemetry, hosts []control.HostParams) {
	if p.hosts == nil {
		return
	}
	h := p.hosts[p.step(t.Now)]
	if h == (control.HostParams{}) {
		return
	}
	for _, port := range p.hostPorts {
		hosts[port] = h
	}
}

// SchedHostsSep separates a step's setting from the hosts' DCQCN
// constants it may carry: T=KMIN_KB,KMAX_KB,PMAX/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS.
// A '/' cannot clash with the rest of a spec: it is in no time
// (topo.ParseDelay: digits, '.', a unit's letters) and no number
// (strconv.ParseFloat: digits, sign, '.', exponent, hex and inf/nan
// letters, '_'); the spec grammar's own separators are others (':'
// between steps and after the name, ',' between numbers and between the
// specs of a list, which policy.Split keeps whole since the piece after
// such a comma starts with a digit, '=' after a step's time, HostsMark);
// and the one '/' of the grammar elsewhere, in tuned:FILE's and
// graphcc:FILE's paths, is never inside sched's arguments. A policy name
// that becomes a file name (testbed run's per-policy outputs) has its '/'
// replaced there, as tuned:DIR's already has.
const SchedHostsSep = "/"

// parseSched parses a schedule, T=KMIN_KB,KMAX_KB,PMAX steps separated by
// ':' (the arguments of a sched: spec), each possibly followed by
// SchedHostsSep and the hosts' constants as ParseHostParams reads them: T
// a time ("0", "5ms", "12.5ms", "300us"; topo.ParseDelay's units), the
// setting of a 25 Gbps port as static:KMIN_KB,KMAX_KB,PMAX gives it.
func parseSched(args string) ([]SchedStep, error) {
	if args == "" {
		return nil, errors.New("want steps T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS] separated by ':', the first at 0")
	}
	parts := strings.Split(args, ":")
	if len(parts) > MaxSchedSteps {
		return nil, fmt.Errorf("%d steps, want at most %d", len(parts), MaxSchedSteps)
	}
	steps := make([]SchedStep, len(parts))
	for i, part := range parts {
		var err error
		if steps[i], err = parseSchedStep(part); err != nil {
			return nil, fmt.Errorf("step %d %w", i, err)
		}
	}
	if err := checkSched(steps); err != nil {
		return nil, errors.New(strings.TrimPrefix(err.Error(), "sched: "))
	}
	return steps, nil
}

// parseSchedStep parses one step of a schedule. Its errors start with
// what names the step after its index: the step as written, or once its
// time parsed, "at T".
func parseSchedStep(part string) (SchedStep, error) {
	at, setting, ok := strings.Cut(part, "=")
	if !ok {
		return SchedStep{}, fmt.Errorf("%q: want T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS]", part)
	}
	t, err := parseSchedTime(strings.TrimSpace(at))
	if err != nil {
		return SchedStep{}, fmt.Errorf("%q: %w", part, err)
	}
	setting, hosts, withHosts := strings.Cut(setting, SchedHostsSep)
	e, err := parseSetting(setting)
	if err != nil {
		return SchedStep{}, fmt.Errorf("%q: %w", part, err)
	}
	s := SchedStep{At: t, ECN: e}
	if withHosts {
		if s.Hosts, err = ParseHostParams(hosts); err != nil {
			return SchedStep{}, fmt.Errorf("at %s: hosts: %w", topo.FormatDuration(t), err)
		}
	}
	return s, nil
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
// by topo.FormatDuration, numbers in strconv's shortest decimal form (the
// hosts' constants by FormatHostParams, as +dcqcn:'s).
func formatSched(steps []SchedStep) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = topo.FormatDuration(s.At) + "=" + formatSetting(s.ECN)
		if s.Hosts != (control.HostParams{}) {
			parts[i] += SchedHostsSep + FormatHostParams(s.Hosts)
		}
	}
	return strings.Join(parts, ":")
}

// formatSetting writes a setting as KMIN_KB,KMAX_KB,PMAX.
func formatSetting(e control.ECN) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	return f(float64(e.KMin)/control.KB) + "," + f(float64(e.KMax)/control.KB) + "," + f(e.PMax)
}

// schedDef is the registry's entry of sched.
func schedDef() def {
	return def{
		Spec: Spec{Name: "sched", Usage: "sched:T=KMIN_KB,KMAX_KB,PMAX[/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS][:T=…]",
			Help: "sched:0=2,32,0.01:10ms=32,256,0.75: a time schedule of fixed settings (an oracle for phased traffic), from each time T on " +
				"(counted from the start of the arrival window, the first at 0) that setting of a 25 Gbps port on every switch port, scaled by rate; " +
				"sched:0=0.5,32,0.125/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400: a step may also set every host's DCQCN constants from T on " +
				"(after a /, as +dcqcn: gives them); a step without them keeps those in force, and hosts are on the hardware's until a step sets some; " +
				"a schedule whose steps set them takes no +dcqcn:"},
		build:     plain(buildSched),
		canon:     canonicalSched,
		setsHosts: schedSetsHosts,
	}
}

// schedSetsHosts is sched's def.setsHosts: whether a step of the schedule
// args sets the hosts' constants. If one does, the first step's are given
// in the schedule or not at all (the hardware's): a HostsMark beside them
// would either contradict the first step's or be a second spelling of
// the same schedule (0=…/H), and Canonical names a policy once.
func schedSetsHosts(args string) (bool, string) {
	steps, err := parseSched(args)
	if err != nil || !schedHosts(steps) {
		return false, ""
	}
	return true, " (its steps set them; give the first step's in the schedule, 0=KMIN_KB,KMAX_KB,PMAX/TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS)"
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
