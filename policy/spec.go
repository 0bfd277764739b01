package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/models"
	"graphcc/replay"
	"graphcc/replay/ideal"
	"graphcc/scenario"
	"graphcc/topo"
)

// A policy spec names a policy as the CLI, scenario runs and reports do:
// NAME or NAME:ARGS, such as static, static:10,40,0.2, edge:2,32,0.01:16,64,0.5,
// react:8:32,128,0.5:2,16,1, hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50, sched:0=2,32,0.01:10ms=32,256,0.75
// (whose steps may carry the hosts' constants: sched:0=2,32,0.01/55,55,2,5,25:10ms=32,256,0.75/30,55,2,40,400), tuned:FILE,
// tuned:DIR, tuned:joint, tuned:switch (ShippedTunes), graphcc, graphcc:bare, graphcc:switch, graphcc:bare-switch
// (DefaultGraphCC and the other built-in ones), graphcc:FILE, acc, acc:FILE or ideal, any but ideal
// followed by HostsMark and the hosts' DCQCN constants; or
// floor:MARGIN[/HOST_MARGIN[/LINK_HOLD]]:BASE[@graphcc[:MODEL]], whose BASE is any of those but
// graphcc and ideal, its HostsMark included (floor:0.05:static:0.5,32,0.125+dcqcn:55,55,2,5,25@graphcc:m.model).
// Specs lists them with their usage and help. Errors of Parse do not name a
// flag; callers add it.

// Env is what building a policy may need besides its spec: the settings of
// policies that train before they run (acc without a model file). The zero
// Env is ready to use.
type Env struct {
	// Log, if set, is told when acc starts training on a scenario.
	Log *slog.Logger
	// ACCEpisodes is how many episodes acc without a model file trains on
	// each scenario; 0: DefaultACCEpisodes.
	ACCEpisodes int
	// Params and Interval are the simulator acc trains in when it trains on
	// the spot (zero: the trainer's defaults, replay.DefaultParams and
	// control.DefaultInterval): the one it will run in.
	Params   replay.Params
	Interval int64
	// WarnHardware makes a tuned: policy tell Log (at warn level) when its
	// tune result was made on simulated hardware other than Params and
	// Interval, naming what differs: the result's score holds on its own
	// hardware, not on this. sim, eval and train check all of it; the
	// testbed, whose other hardware is its own, the hosts' DCQCN
	// constants alone.
	WarnHardware HardwareCheck
}

// HardwareCheck is what of the hardware a tuned: policy compares with
// its tune's (Env.WarnHardware).
type HardwareCheck int

const (
	// HardwareUnchecked compares nothing (the zero value).
	HardwareUnchecked HardwareCheck = iota
	// HardwareAll compares every constant and the control interval.
	HardwareAll
	// HardwareDCQCN compares the hosts' DCQCN constants alone.
	HardwareDCQCN
)

// DefaultACCEpisodes is how long acc without a model file trains on each
// scenario.
const DefaultACCEpisodes = 100

// Spec describes one form of policy spec, for help texts.
type Spec struct {
	Name  string // the spec before the colon
	Usage string // e.g. "static[:KMIN_KB,KMAX_KB,PMAX]"
	Help  string // a sentence or two
	// SimulatorOnly marks a spec that is not an ECN control policy and
	// that only the simulator runs (ideal): ParseControl refuses it.
	SimulatorOnly bool
}

// Specs lists every spec Parse takes, in the order its errors list them.
func Specs() []Spec {
	var out []Spec
	for _, d := range defs(context.Background(), Env{}, true) {
		out = append(out, d.Spec)
	}
	return out
}

// Parse returns the policy spec names, under its canonical spec
// (Canonical) as its name: an ECN control policy, or ideal, the fabric's
// max-min fair share without queues (ideal.Run, as Named.Run), which the
// simulator runs in place of a packet-level simulation. ctx bounds the
// training of a policy that trains when its factory is first called (acc
// without a model file).
func Parse(ctx context.Context, spec string, env Env) (Named, error) {
	return lookup(spec, defs(ctx, env, true))
}

// ParseControl is Parse for a fabric that runs only ECN control policies
// (the testbed): it does not know ideal.
func ParseControl(ctx context.Context, spec string, env Env) (Named, error) {
	return lookup(spec, defs(ctx, env, false))
}

// Canonical writes spec as Parse names it: for static, edge and react
// every number of the arguments (separated by ':' and ',') in strconv's
// shortest decimal form, so that static:2,16,0.010 and static:2,16,0.01 are
// one policy; for sched, also every time in topo.FormatDuration's form
// (sched:0=2,32,.01:5.0ms=8,64,1 is sched:0=2,32,0.01:5ms=8,64,1) and its
// steps' hosts' constants as FormatHostParams writes them; any other spec
// as it is.
func Canonical(spec string) string {
	return canonical(spec, defs(context.Background(), Env{}, true))
}

// Split splits a list of specs at its commas, except that a piece that does
// not start with a letter continues the arguments of the spec before it:
// "static,static:10,40,0.2" is static and static:10,40,0.2.
func Split(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ",") {
		p = strings.TrimSpace(p)
		startsName := p != "" && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
		if !startsName && len(out) > 0 && strings.Contains(out[len(out)-1], ":") {
			out[len(out)-1] += "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// Grid is the name, in a list of specs, that stands for every fixed
// setting of the learned policies' action set (ExpandGrid).
const Grid = "grid"

// ExpandGrid replaces each Grid in specs by the static:KMIN_KB,KMAX_KB,PMAX
// spec of every action of gnn's action set, in action order: what any fixed
// setting a learned policy can choose achieves.
func ExpandGrid(specs []string) []string {
	var out []string
	for _, s := range specs {
		if s != Grid {
			out = append(out, s)
			continue
		}
		for a := range gnn.NumActions {
			kmin, kmax, pmax := gnn.ActionLevels(a)
			out = append(out, fmt.Sprintf("static:%d,%d,%g", kmin, kmax, pmax))
		}
	}
	return out
}

// def is one entry of the spec registry. To add a policy, add a def: its
// Spec, and build, which parses the spec's arguments into a factory or
// fails saying what is wrong with them.
type def struct {
	Spec
	// build parses the spec's arguments, the text after the colon ("" when
	// there is none), into a factory and, for a policy that needs something
	// of each scenario it runs on, the check of a scenario (Named.Check;
	// nil for the others, which plain adapts).
	build func(args string) (Factory, func(scenario.Scenario) error, error)
	// run, if set, runs the spec's runs instead of the packet-level
	// simulator (Named.Run).
	run func(context.Context, replay.Config) (*replay.Result, error)
	// numeric marks a policy whose arguments are numbers only: its name is
	// then written with each number in one form (canonical).
	numeric bool
	// canon, if set, writes the spec's arguments in one form (canonical);
	// it returns arguments it cannot parse as they are.
	canon func(args string) string
	// setsHosts, if set, reports whether the policy of the spec's
	// arguments sets the hosts' DCQCN constants itself, every interval
	// (parsed arguments only): it then takes no HostsMark, and the reason
	// is said in lookup's error after "drop +dcqcn:…".
	setsHosts func(args string) (bool, string)
	// inputs, if set, returns Named.Inputs of the spec's arguments (nil
	// where the spec describes the policy whole).
	inputs func(args string) func(scenario.Scenario) (string, error)
	// nests marks a policy whose arguments hold whole specs (floor):
	// HostsMark in them belongs to those specs, not to the policy.
	nests bool
}

// defs is the registry: the ECN control policies, static and the learned
// ones, and with withIdeal the simulator's ideal.
func defs(ctx context.Context, env Env, withIdeal bool) []def {
	d := []def{
		{
			Spec: Spec{Name: "static", Usage: "static[:KMIN_KB,KMAX_KB,PMAX]",
				Help: "static: Alibaba's thresholds (kmin 100 KB, kmax 400 KB, pmax 0.2 per 25 Gbps), never changed; " +
					"static:10,40,0.2: those thresholds of a 25 Gbps port, scaled by each switch port's rate/25G"},
			build:   plain(buildStatic),
			numeric: true,
		},
		{
			Spec: Spec{Name: "edge", Usage: "edge:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX",
				Help: "edge:2,32,0.01:16,64,0.5: fixed thresholds by port role, the first setting on switch ports facing a host " +
					"and the second on switch ports facing a switch (both of a 25 Gbps port, scaled by rate)"},
			build:   plain(buildEdge),
			numeric: true,
		},
		{
			Spec: Spec{Name: "react", Usage: "react:Q_KB:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX",
				Help: "react:8:32,128,0.5:2,16,1: a hand-written adaptive policy, every interval the second setting on switch ports " +
					"whose queue feature reached Q KB and the first on the others (all of a 25 Gbps port, scaled by rate)"},
			build:   plain(buildReactive),
			numeric: true,
		},
		{
			Spec: Spec{Name: "hostreact", Usage: "hostreact:KMIN_KB,KMAX_KB,PMAX:UTIL:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS",
				Help: "hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50: a hand-written policy of the hosts' DCQCN constants, the switches on the first setting " +
					"(of a 25 Gbps port, scaled by rate) and, every interval, each host on the second constants (as +dcqcn:) if its NIC sent at least UTIL " +
					"of its line rate in the interval that ended and on the first otherwise; hosts start on the first"},
			build:     plain(buildHostReact),
			numeric:   true,
			setsHosts: func(string) (bool, string) { return true, "" },
		},
		schedDef(),
		{
			Spec: Spec{Name: "tuned", Usage: "tuned:FILE|DIR|joint|switch",
				Help: "tuned:tune.json: the best fixed setting graphcc tune found, the best_policy of its result file " +
					"(static:KMIN_KB,KMAX_KB,PMAX or edge:…, with the hosts' DCQCN constants where tune set them, which replace the hardware's; " +
					"or, in a hand-made file, a sched:… schedule); " +
					"it scores as the file records with the hardware flags the tune was given (sim, eval, train and testbed run warn when they differ); " +
					"tuned:DIR: on each scenario the best_policy of DIR/<scenario>.json, that scenario's tune result (the per-scenario tuned constant; " +
					"on a named scenario only: eval's, sim --scenario's); " +
					"tuned:joint and tuned:switch: the tune results graphcc ships, built in, one configuration for the whole suite, " +
					"of the switches and the hosts' DCQCN (models/tuned-joint-global.json) or of the switches alone (models/tuned-global.json); " +
					"a file or directory named joint or switch is ./joint or ./switch"},
			build:  func(args string) (Factory, func(scenario.Scenario) error, error) { return buildTuned(args, env) },
			inputs: tunedInputs,
		},
		graphccDef(ctx, env),
		{
			Spec: Spec{Name: "acc", Usage: "acc[:MODEL]",
				Help: "acc: ACC agents trained first on the scenario they run on (eval's scenarios, with --acc-episodes; sim --scenario; " +
					"testbed run's Clos and generated traffic); " +
					"acc:FILE: ACC agents trained by graphcc train --kind acc, for a fabric of the same shape"},
			build: plain(func(args string) (Factory, error) {
				if args != "" {
					return ACCFile(args)
				}
				return ACC(ctx, env), nil
			}),
			inputs: func(args string) func(scenario.Scenario) (string, error) {
				if args != "" {
					return fileInputs(args)
				}
				return accInputs(env)
			},
		},
	}
	d = append(d, floorDef(ctx, env))
	if withIdeal {
		d = append(d, idealDef())
	}
	return d
}

// graphccDef is the registry's entry of graphcc: the GraphCC policies
// built in (the default, DefaultGraphCC, and GraphCCBare, GraphCCSwitch,
// GraphCCBareSwitch) and a model file's.
func graphccDef(ctx context.Context, env Env) def {
	return def{
		Spec: Spec{Name: "graphcc", Usage: "graphcc[:bare|switch|bare-switch|MODEL]",
			Help: "graphcc: the default, the GraphCC model built into the binary (" + models.GraphCCFile + ", with a host head) held to tuned:joint, " +
				DefaultGraphCC + "; graphcc:bare: that model alone; " +
				"graphcc:switch: for NICs whose DCQCN constants cannot be set, the built-in switch-only model held to tuned:switch, " +
				SwitchGraphCC + "; graphcc:bare-switch: that model alone (graphcc before 2026-12-08); " +
				"graphcc:FILE: a model trained by graphcc train, alone; a file named bare, switch or bare-switch is ./NAME"},
		build: func(args string) (Factory, func(scenario.Scenario) error, error) {
			if fl, ok := shippedFloor(args); ok {
				return buildFloor(ctx, env, strings.TrimPrefix(fl, "floor:"))
			}
			f, err := GraphCC(args)
			return f, nil, err
		},
		inputs: func(args string) func(scenario.Scenario) (string, error) {
			if fl, ok := shippedFloor(args); ok {
				return floorInputs(ctx, env)(strings.TrimPrefix(fl, "floor:"))
			}
			if args == GraphCCBare || args == GraphCCBareSwitch {
				return nil
			}
			return fileInputs(args)
		},
		setsHosts: func(args string) (bool, string) {
			if args == "" || args == GraphCCBare {
				return true, " (its host head sets them)"
			}
			return false, ""
		},
	}
}

// idealDef is the registry's entry of ideal, which only the simulator
// runs.
func idealDef() def {
	return def{
		Spec: Spec{Name: "ideal", Usage: "ideal", SimulatorOnly: true,
			Help: "ideal: not an ECN policy but the fabric's ideal, every flow at its max-min fair share of the ports on its path " +
				"at every instant, without queues (no telemetry, queue, PFC or ECN figures)"},
		build: plain(func(args string) (Factory, error) {
			if args != "" {
				return nil, fmt.Errorf("ideal takes no arguments, got %q", args)
			}
			return func(*topo.Fabric, scenario.Scenario, uint64) (control.Policy, []control.ECN, error) {
				return nil, nil, errors.New("ideal is not an ECN control policy")
			}, nil
		}),
		run: ideal.Run,
	}
}

// plain adapts build, a policy's build without a check of each
// scenario, to def.build.
func plain(build func(args string) (Factory, error)) func(string) (Factory, func(scenario.Scenario) error, error) {
	return func(args string) (Factory, func(scenario.Scenario) error, error) {
		f, err := build(args)
		return f, nil, err
	}
}

// canonical writes spec as lookup names it (Canonical).
func canonical(spec string, defs []def) string {
	base, hosts, withHosts := cutHosts(spec, defs)
	if withHosts {
		return canonical(base, defs) + HostsMark + canonicalNumbers(hosts)
	}
	name, args, ok := strings.Cut(spec, ":")
	if i := slices.IndexFunc(defs, func(d def) bool { return d.Name == name && d.canon != nil }); ok && i >= 0 {
		return name + ":" + defs[i].canon(args)
	}
	if !ok || !slices.ContainsFunc(defs, func(d def) bool { return d.Name == name && d.numeric }) {
		return spec
	}
	groups := strings.Split(args, ":")
	for i, g := range groups {
		groups[i] = canonicalNumbers(g)
	}
	return name + ":" + strings.Join(groups, ":")
}

// canonicalNumbers writes every number of the comma-separated list g in
// strconv's shortest decimal form, and anything else as it is.
func canonicalNumbers(g string) string {
	nums := strings.Split(g, ",")
	for j, n := range nums {
		if x, err := strconv.ParseFloat(strings.TrimSpace(n), 64); err == nil {
			nums[j] = strconv.FormatFloat(x, 'f', -1, 64)
		}
	}
	return strings.Join(nums, ",")
}

// HostsMark joins a policy spec and the hosts' DCQCN constants it runs
// with: SPEC+dcqcn:TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS (see
// ParseHostParams).
const HostsMark = "+dcqcn:"

// cutHosts cuts spec at HostsMark into the policy and the hosts'
// constants, unless its policy nests specs (def.nests): then all of spec
// is the policy.
func cutHosts(spec string, defs []def) (base, hosts string, withHosts bool) {
	name, _, _ := strings.Cut(spec, ":")
	if slices.ContainsFunc(defs, func(d def) bool { return d.Name == name && d.nests }) {
		return spec, "", false
	}
	return strings.Cut(spec, HostsMark)
}

// lookup finds spec (NAME, NAME:ARGS, either followed by HostsMark and the
// hosts' constants) among defs.
func lookup(spec string, defs []def) (Named, error) {
	base, hosts, withHosts := cutHosts(spec, defs)
	name, args, _ := strings.Cut(base, ":")
	for _, d := range defs {
		if d.Name != name {
			continue
		}
		f, check, err := d.build(args)
		if err != nil {
			return Named{}, fmt.Errorf("%s: %w (usage: %s)", spec, err, d.Usage)
		}
		if withHosts {
			if d.run != nil {
				return Named{}, fmt.Errorf("%s: %s has no hosts' DCQCN to set", spec, name)
			}
			if d.setsHosts != nil {
				if sets, why := d.setsHosts(args); sets {
					return Named{}, fmt.Errorf("%s: %s sets the hosts' DCQCN itself: drop %s…%s", spec, name, HostsMark, why)
				}
			}
			hp, err := ParseHostParams(hosts)
			if err != nil {
				return Named{}, fmt.Errorf("%s: %w", spec, err)
			}
			f = WithHosts(f, hp)
		}
		np := Named{Name: canonical(spec, defs), New: f, Run: d.run, Check: check}
		if d.inputs != nil {
			np.Inputs = d.inputs(args)
		}
		return np, nil
	}
	names := make([]string, len(defs))
	usages := make([]string, len(defs))
	for i, d := range defs {
		names[i], usages[i] = d.Name, d.Usage
	}
	return Named{}, fmt.Errorf("unknown ECN policy %q (have: %s); forms: %s",
		base, strings.Join(names, ", "), strings.Join(usages, ", "))
}

// buildStatic is the static policy: no arguments for Alibaba's thresholds,
// or KMIN_KB,KMAX_KB,PMAX for fixed thresholds of a 25 Gbps port scaled by
// each switch port's rate.
func buildStatic(args string) (Factory, error) {
	if args == "" {
		return Static(), nil
	}
	e, err := parseSetting(args)
	if err != nil {
		return nil, err
	}
	return Fixed(e), nil
}

// parseSetting parses KMIN_KB,KMAX_KB,PMAX, the thresholds in KB of 1000 B
// (control.KB), into a valid setting.
func parseSetting(args string) (control.ECN, error) {
	v, err := parseNumbers(args, "KMIN_KB,KMAX_KB,PMAX")
	if err != nil {
		return control.ECN{}, err
	}
	if v[0] < 0 || v[1] < 0 || v[0] > 1e12 || v[1] > 1e12 {
		return control.ECN{}, fmt.Errorf("thresholds kmin %g KB, kmax %g KB: want 0 to 1e12 KB", v[0], v[1])
	}
	e := control.ECN{KMin: int64(math.Round(v[0] * control.KB)), KMax: int64(math.Round(v[1] * control.KB)), PMax: v[2]}
	if err := e.Validate(); err != nil {
		return control.ECN{}, err
	}
	return e, nil
}

// parseNumbers parses args, comma-separated finite numbers, as many as
// the comma-separated names of form.
func parseNumbers(args, form string) ([]float64, error) {
	n := strings.Count(form, ",") + 1
	parts := strings.Split(args, ",")
	if len(parts) != n {
		return nil, fmt.Errorf("want %d comma-separated numbers %s, got %q", n, form, args)
	}
	v := make([]float64, n)
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%q is not a number", p)
		}
		v[i] = x
	}
	return v, nil
}

// buildReactive is the reactive policy: Q_KB:CALM:BUSY, a queue threshold
// in KB and two settings KMIN_KB,KMAX_KB,PMAX, all of a 25 Gbps port
// (Reactive).
func buildReactive(args string) (Factory, error) {
	parts := strings.Split(args, ":")
	if len(parts) != 3 {
		return nil, fmt.Errorf("want Q_KB:KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, got %q", args)
	}
	q, err := strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
	if err != nil || !(q >= 0) || q > 1e9 {
		return nil, fmt.Errorf("queue threshold %q must be a number of KB in [0, 1e9]", parts[0])
	}
	calm, err := parseSetting(parts[1])
	if err != nil {
		return nil, fmt.Errorf("calm setting: %w", err)
	}
	busy, err := parseSetting(parts[2])
	if err != nil {
		return nil, fmt.Errorf("busy setting: %w", err)
	}
	return Reactive(q*control.KB, calm, busy), nil
}

// buildEdge is the policy of two fixed settings by port role:
// KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX, the first for switch ports
// facing a host, the second for switch ports facing a switch, both of a
// 25 Gbps port (Edge).
func buildEdge(args string) (Factory, error) {
	parts := strings.Split(args, ":")
	if len(parts) != 2 {
		return nil, fmt.Errorf("want KMIN_KB,KMAX_KB,PMAX:KMIN_KB,KMAX_KB,PMAX (ports facing a host, then ports facing a switch), got %q", args)
	}
	host, err := parseSetting(parts[0])
	if err != nil {
		return nil, fmt.Errorf("setting of ports facing a host: %w", err)
	}
	sw, err := parseSetting(parts[1])
	if err != nil {
		return nil, fmt.Errorf("setting of ports facing a switch: %w", err)
	}
	return Edge(host, sw), nil
}

// buildTuned is the policy of graphcc tune results: with the name of a
// shipped one (ShippedTunes: joint, switch) or the path of a result file,
// its best_policy; with the path of a directory, on each
// scenario the best_policy of that scenario's result file in it
// (tunedDir), which Named.Check looks for before any run. A best_policy
// is a fixed setting, one for all ports (static or
// static:KMIN_KB,KMAX_KB,PMAX) or one per port role (edge:…), with the
// hosts' DCQCN constants where tune set them (HostsMark), or, in a
// hand-made file (a per-phase oracle as a yardstick or teacher), a time
// schedule of settings, sched:…, whose steps may set the hosts' constants.
func buildTuned(args string, env Env) (Factory, func(scenario.Scenario) error, error) {
	if args == "" {
		return nil, nil, errors.New("want the path of a graphcc tune result file, or of a directory of one per scenario, or joint or switch (the shipped ones)")
	}
	if r, ok, err := loadShipped(args); ok {
		if err != nil {
			return nil, nil, err
		}
		r.warnHardware(env, "tuned:"+args)
		return r.f, nil, nil
	}
	if st, err := os.Stat(args); err == nil && st.IsDir() {
		d := &tunedDir{dir: args, env: env, byName: map[string]*tunedOnce{}}
		return d.factory, d.check, nil
	}
	r, err := loadTuned(args)
	if err != nil {
		return nil, nil, err
	}
	r.warnHardware(env, args)
	return r.f, nil, nil
}

// tunedResult is a graphcc tune result file as tuned: reads it.
type tunedResult struct {
	f        Factory // the policy of its best_policy (parseFixed)
	scenario string  // the scenario it was tuned on, "" without one
	spec     string  // its best_policy
	// hardware is the simulated hardware its scores were made on
	// (Hardware's form), "" in files from before it was recorded and in
	// hand-made ones: the default hardware.
	hardware string
}

// loadTuned reads the graphcc tune result file at path.
func loadTuned(path string) (tunedResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return tunedResult{}, err
	}
	return parseTuned(b, path)
}

// parseTuned reads a graphcc tune result, b, which its errors call
// name (its path, or the spec of a shipped one).
func parseTuned(b []byte, name string) (tunedResult, error) {
	var r struct {
		Scenario   string `json:"scenario"`
		BestPolicy string `json:"best_policy"`
		Hardware   string `json:"hardware"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return tunedResult{}, fmt.Errorf("%s: not a tune result: %w", name, err)
	}
	if r.BestPolicy == "" {
		return tunedResult{}, fmt.Errorf("%s: no best_policy", name)
	}
	f, err := parseFixed(r.BestPolicy)
	if err != nil {
		return tunedResult{}, fmt.Errorf("%s: best_policy %q: %w", name, r.BestPolicy, err)
	}
	return tunedResult{f: f, scenario: r.Scenario, spec: r.BestPolicy, hardware: r.Hardware}, nil
}

// hardwareOrDefault returns the hardware r was tuned on, the default one
// for a file that does not record it.
func (r tunedResult) hardwareOrDefault() string {
	if r.hardware == "" {
		return Hardware(replay.Params{}, 0)
	}
	return r.hardware
}

// warnHardware tells env.Log, if env.WarnHardware, what in the hardware
// of env differs from that of the result read from path.
func (r tunedResult) warnHardware(env Env, path string) {
	if env.WarnHardware == HardwareUnchecked || env.Log == nil {
		return
	}
	diff := HardwareDiff(r.hardwareOrDefault(), Hardware(env.Params, env.Interval))
	if env.WarnHardware == HardwareDCQCN {
		diff = slices.DeleteFunc(diff, func(d string) bool { return !strings.HasPrefix(d, "params.DCQCN.") })
	}
	if len(diff) > 0 {
		env.Log.Warn("a tune result made on other simulated hardware (times in ps): its recorded score holds there, not here",
			"file", path, "differs", strings.Join(diff, "; "))
	}
}

// parseFixed parses a spec of fixed settings, static or edge, with the
// hosts' constants if it carries them, or a time schedule of them, sched
// (whose steps may set the hosts' constants instead).
func parseFixed(spec string) (Factory, error) {
	base, hosts, withHosts := strings.Cut(spec, HostsMark)
	name, args, _ := strings.Cut(base, ":")
	var (
		f   Factory
		err error
	)
	switch name {
	case "static":
		f, err = buildStatic(args)
	case "edge":
		f, err = buildEdge(args)
	case "sched":
		f, err = buildSched(args)
	default:
		return nil, errors.New("not a fixed setting (static:KMIN_KB,KMAX_KB,PMAX or edge:…, with +dcqcn:… or without) nor a schedule of them (sched:…)")
	}
	if err != nil {
		return nil, err
	}
	if name == "sched" && withHosts {
		if sets, why := schedSetsHosts(args); sets {
			return nil, fmt.Errorf("sched sets the hosts' DCQCN itself: drop %s…%s", HostsMark, why)
		}
	}
	if withHosts {
		hp, err := ParseHostParams(hosts)
		if err != nil {
			return nil, err
		}
		f = WithHosts(f, hp)
	}
	return f, nil
}
