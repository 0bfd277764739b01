package policy

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/scenario"
	"graphcc/topo"
)

// FloorModelMark separates a floor spec's base from its model:
// floor:MARGIN:BASE@MODEL.
const FloorModelMark = "@graphcc"

// floorDef is the registry's entry of floor, a GraphCC model held to a
// base policy unless confident (gnn.Floor). Its arguments hold whole
// specs, HostsMark and all, so lookup and canonical do not cut its
// hosts' constants off (nests).
func floorDef(ctx context.Context, env Env) def {
	return def{
		Spec: Spec{Name: "floor", Usage: "floor:MARGIN[/HOST_MARGIN[/LINK_HOLD]]:BASE[@graphcc[:MODEL]]",
			Help: "floor:0.05:tuned:models/tuned-joint-global.json@graphcc:models/graphcc-hosts.model: the GraphCC model (the built-in switch-only one, graphcc:bare-switch, without @… or with @graphcc; @graphcc:bare: the built-in host-head one) " +
				"held to the base policy BASE (any ECN policy spec but floor, its hosts' constants included, e.g. static:0.5,32,0.125+dcqcn:55,55,2,5,25): " +
				"every interval each switch port, and with a host head each host, keeps the base's setting unless the model's Q value of its greedy action " +
				"exceeds its Q value of the action nearest the base's setting by more than MARGIN (inf: the base exactly; -inf: the model, from the base's start); " +
				"floor:30/10:…: margin 30 for the switch ports, 10 for the hosts; floor:5/5/2ms:…: besides, every port and host on the base while a link of the fabric is down and for 2 ms after the last comes back"},
		build: func(args string) (Factory, func(scenario.Scenario) error, error) {
			return buildFloor(ctx, env, args)
		},
		canon:  canonicalFloor,
		nests:  true,
		inputs: floorInputs(ctx, env),
	}
}

// floorArgs is a floor spec's arguments, split.
type floorArgs struct {
	gates       gnn.FloorGates
	base, model string // specs
}

// parseFloorArgs splits GATES:BASE[@graphcc[:MODEL]]. GATES is
// MARGIN[/HOST_MARGIN[/LINK_HOLD]] (parseFloorGates); the base is cut
// at the first FloorModelMark.
func parseFloorArgs(args string) (floorArgs, error) {
	m, rest, ok := strings.Cut(args, ":")
	if !ok {
		return floorArgs{}, fmt.Errorf("want MARGIN:BASE[%s[:MODEL]], got %q", FloorModelMark, args)
	}
	gates, err := parseFloorGates(m)
	if err != nil {
		return floorArgs{}, err
	}
	a := floorArgs{gates: gates, base: rest, model: "graphcc"}
	if i := strings.Index(rest, FloorModelMark); i >= 0 {
		a.base, a.model = rest[:i], rest[i+1:]
	}
	if name, m, _ := strings.Cut(a.model, ":"); name != "graphcc" || m == GraphCCSwitch {
		return floorArgs{}, fmt.Errorf("model %q: want graphcc (the built-in switch-only model), graphcc:%s, graphcc:%s or graphcc:FILE", a.model, GraphCCBare, GraphCCBareSwitch)
	}
	if name, _, _ := strings.Cut(a.base, ":"); name == "floor" || name == "graphcc" || name == "" {
		return floorArgs{}, fmt.Errorf("base %q: want a policy spec other than floor and graphcc", a.base)
	}
	return a, nil
}

// modelSpec returns the spec of the unfloored policy of a's model: with
// the model graphcc, the built-in switch-only model (as before graphcc
// named a floor itself), so that floor specs written before 2026-12-08
// run what they ran.
func (a floorArgs) modelSpec() string {
	if a.model == "graphcc" {
		return "graphcc:" + GraphCCBareSwitch
	}
	return a.model
}

// parseFloorGates parses MARGIN[/HOST_MARGIN[/LINK_HOLD]]: the switch
// ports' margin, the host agents' (MARGIN's if not given), and the hold on
// link events (gnn.FloorGates.HoldLinks) with its time after the last link
// comes back (a duration; not given: no hold). Slashes, not commas: a list
// of specs is split at commas (Split).
func parseFloorGates(v string) (gnn.FloorGates, error) {
	parts := strings.Split(v, "/")
	if len(parts) > 3 {
		return gnn.FloorGates{}, fmt.Errorf("gates %q: want MARGIN[/HOST_MARGIN[/LINK_HOLD]]", v)
	}
	var gs gnn.FloorGates
	var err error
	if gs.Margin, err = parseMargin(parts[0]); err != nil {
		return gs, err
	}
	gs.HostMargin = gs.Margin
	if len(parts) > 1 {
		if gs.HostMargin, err = parseMargin(parts[1]); err != nil {
			return gs, fmt.Errorf("host %w", err)
		}
	}
	if len(parts) > 2 {
		gs.HoldLinks = true
		if gs.LinkHold, err = topo.ParseDuration("link hold", strings.TrimSpace(parts[2]), true); err != nil {
			return gs, err
		}
	}
	return gs, nil
}

// parseMargin parses one margin: a number or ±inf, not NaN.
func parseMargin(v string) (float64, error) {
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(x) {
		return 0, fmt.Errorf("margin %q is not a number (nor inf or -inf)", v)
	}
	return x, nil
}

// buildFloor parses a floor spec's arguments into its factory and its
// base's scenario check.
func buildFloor(ctx context.Context, env Env, args string) (Factory, func(scenario.Scenario) error, error) {
	a, err := parseFloorArgs(args)
	if err != nil {
		return nil, nil, err
	}
	base, err := ParseControl(ctx, a.base, env)
	if err != nil {
		return nil, nil, fmt.Errorf("base: %w", err)
	}
	model, err := ParseControl(ctx, a.modelSpec(), env)
	if err != nil {
		return nil, nil, fmt.Errorf("model: %w", err)
	}
	f := func(fab *topo.Fabric, sc scenario.Scenario, seed uint64) (control.Policy, []control.ECN, error) {
		return newFloor(fab, sc, seed, base.New, model.New, a.gates)
	}
	return f, base.Check, nil
}

// newFloor builds one run's floor policy of the base and model factories.
func newFloor(fab *topo.Fabric, sc scenario.Scenario, seed uint64, base, model Factory, gates gnn.FloorGates) (control.Policy, []control.ECN, error) {
	bp, start, err := base(fab, sc, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("floor base: %w", err)
	}
	if bp == nil {
		bp = control.Static{}
	}
	mp, _, err := model(fab, sc, seed)
	if err != nil {
		return nil, nil, fmt.Errorf("floor model: %w", err)
	}
	g, ok := mp.(*gnn.GraphCC)
	if !ok {
		return nil, nil, fmt.Errorf("floor model is a %T, not a GraphCC policy", mp)
	}
	fl, err := gnn.NewFloor(g, bp, start, fab, gates)
	if err != nil {
		return nil, nil, err
	}
	if start == nil {
		start = control.StaticSettings(fab)
	}
	return fl, start, nil
}

// canonicalFloor writes a floor spec's arguments with its gates canonical
// (formatFloorGates) and its base and model canonical (Canonical).
func canonicalFloor(args string) string {
	a, err := parseFloorArgs(args)
	if err != nil {
		return args
	}
	return formatFloorGates(a.gates) + ":" + Canonical(a.base) + "@" + Canonical(a.model)
}

// formatFloorGates writes gates as parseFloorGates reads them: margins in
// strconv's shortest form or ±inf, the host margin only where it differs
// or a hold follows, the hold only where there is one.
func formatFloorGates(gs gnn.FloorGates) string {
	s := formatMargin(gs.Margin)
	if gs.HostMargin != gs.Margin || gs.HoldLinks {
		s += "/" + formatMargin(gs.HostMargin)
	}
	if gs.HoldLinks {
		s += "/" + topo.FormatDuration(gs.LinkHold)
	}
	return s
}

// formatMargin writes a margin in strconv's shortest form, or inf, -inf.
func formatMargin(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// floorInputs returns the inputs of a floor spec's runs: its base's and
// its model's (Named.Inputs), each after its spec; nil if neither has any.
func floorInputs(ctx context.Context, env Env) func(args string) func(scenario.Scenario) (string, error) {
	return func(args string) func(scenario.Scenario) (string, error) {
		a, err := parseFloorArgs(args)
		if err != nil {
			return nil
		}
		ds := defs(ctx, env, false)
		type part struct {
			spec string
			in   func(scenario.Scenario) (string, error)
		}
		var parts []part
		for _, spec := range []string{a.base, a.modelSpec()} {
			base, _, _ := strings.Cut(spec, HostsMark)
			name, sub, _ := strings.Cut(base, ":")
			for _, d := range ds {
				if d.Name == name && d.inputs != nil {
					if in := d.inputs(sub); in != nil {
						parts = append(parts, part{spec, in})
					}
				}
			}
		}
		if len(parts) == 0 {
			return nil
		}
		return func(sc scenario.Scenario) (string, error) {
			out := make([]string, len(parts))
			for i, p := range parts {
				in, err := p.in(sc)
				if err != nil {
					return "", err
				}
				out[i] = p.spec + "=" + in
			}
			return strings.Join(out, "; "), nil
		}
	}
}
