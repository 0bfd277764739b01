package testbed

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/dcqcn"
	"graphcc/experiment"
	"graphcc/hostgen"
	"graphcc/policy"
	"graphcc/replay"
	"graphcc/topo"
)

// SetPolicies sets c.Policies to the specs of values, each one or several
// comma-separated (policy.Split), and c.Flag to flag, the flag that gave
// them, for messages. It refuses values without a spec.
func (c *RunConfig) SetPolicies(flag string, values []string) error {
	c.Flag, c.Policies = flag, nil
	for _, v := range values {
		c.Policies = append(c.Policies, policy.Split(v)...)
	}
	if len(c.Policies) == 0 {
		return fmt.Errorf("%s %q: no policy", flag, strings.Join(values, ","))
	}
	return nil
}

// parsePolicies resolves the run's policy specs into the runs of
// RunPolicies, keeping the policies in r.
func (r *run) parsePolicies(ctx context.Context) ([]controller.PolicyRun, error) {
	c := r.c
	env := experiment.TestbedPolicyEnv(c.Log, c.Params, c.Interval)
	var runs []controller.PolicyRun
	for _, s := range c.Policies {
		np, err := policy.ParseControl(ctx, s, env)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", c.Flag, s, err)
		}
		if np.Check != nil { // before the lab runs anything (tuned:DIR)
			if err := np.Check(c.Scenario); err != nil {
				return nil, fmt.Errorf("%s %s: %w", c.Flag, s, err)
			}
		}
		r.policies = append(r.policies, np)
		runs = append(runs, controller.PolicyRun{Name: np.Name, New: func(f *topo.Fabric) (control.Policy, []control.ECN, error) {
			pol, ecn, err := np.New(f, c.Scenario, c.Seed)
			if err != nil {
				return nil, nil, fmt.Errorf("%s %s: %w", c.Flag, np.Name, err)
			}
			return pol, ecn, nil
		}})
	}
	return runs, nil
}

// checkACCTrainable refuses, before anything runs, a plain acc (no model
// file) that would have nothing to train on: ACC trains on the run's
// generated traffic on its Clos, so --flows and a lab built from --topo
// need acc:FILE.
func checkACCTrainable(flag string, specs []string, flowsFile string, spec *lab.Spec) error {
	for _, s := range specs {
		if s != "acc" {
			continue
		}
		switch {
		case flowsFile != "":
			return fmt.Errorf("%s acc trains ACC on the generated traffic of the run's scenario, and --flows %s replaces it: train with graphcc train --kind acc and use acc:FILE", flag, flowsFile)
		case spec.Clos == nil:
			return fmt.Errorf("%s acc trains ACC on a Clos scenario, and this lab was not built from one (--topo): train with graphcc train --kind acc and use acc:FILE", flag)
		}
	}
	return nil
}

// hostConfig returns what a testbed run applies to every host's
// configuration: the DCQCN constants d (of a 25 Gbps NIC, as the
// simulator's replay.Params.DCQCN: AI and HAI scaled to the host's line
// rate) unless they are the defaults, which hostgen has already, and no
// emulated propagation delay with noDelays; nil when neither applies.
func hostConfig(d dcqcn.Params, noDelays bool) func(*hostgen.HostConfig) {
	dflt := d == replay.DefaultParams().DCQCN
	if dflt && !noDelays {
		return nil
	}
	hp := control.HostParamsAt(d, control.RefRate)
	return func(h *hostgen.HostConfig) {
		if !dflt {
			h.DCQCN = hp.Apply(d, h.Rate()) // as the simulator scales d to a NIC
		}
		h.NoPropagationDelay = noDelays
	}
}

// PolicyPath returns the output file path of policy's run: path, or with
// several policies in a run, path with the policy's name inserted before
// its extension (":", "/" and "," replaced by "-").
func PolicyPath(path, policy string, several bool) string {
	if path == "" || !several {
		return path
	}
	ext := filepath.Ext(path)
	name := strings.NewReplacer(":", "-", "/", "-", ",", "-").Replace(policy)
	return strings.TrimSuffix(path, ext) + "." + name + ext
}

// FitFanIn returns the incast fan-in of a run on a lab of hosts hosts: an
// incast has at most hosts-1 senders, so a fan-in the user did not set
// (set false, the default) is lowered to that, and one the user set that
// does not fit is refused, naming the fix.
func FitFanIn(fanIn int, set bool, hosts int) (int, error) {
	most := hosts - 1
	switch {
	case fanIn <= most || most < 1:
		return fanIn, nil // fits, or no incast can: the traffic flags' check says so
	case set:
		return 0, fmt.Errorf("--incast-fanin %d: the lab has %d hosts, so an incast has at most %d senders: give --incast-fanin %d or less, or --no-incast, or build a larger lab (testbed up --hosts-per-leaf)", fanIn, hosts, most, most)
	}
	return most, nil
}
