package controller

import (
	"testing"

	"graphcc/control"
	"graphcc/dcqcn"
	"graphcc/hostgen"
	"graphcc/topo"
)

// hostTuned is a policy that sets the hosts' DCQCN constants.
type hostTuned struct {
	control.Static
	h control.HostParams
}

func (p hostTuned) HostParams() (control.HostParams, bool) { return p.h, true }

// TestHostConfig checks what RunWorkload applies to each host: the
// caller's Host first, then the policy's DCQCN constants for the host's
// line rate, and nothing of the policy's without them.
func TestHostConfig(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	node := f.Hosts()[0]
	rate := f.Ports[f.HostPort(node)].Rate
	h := control.DefaultHostParams()
	h.IncreaseInterval, h.AI = 55*topo.Microsecond, 10*topo.Mbps
	caller := func(hc *hostgen.HostConfig) { hc.NoPropagationDelay = true }
	for _, tc := range []struct {
		name   string
		policy control.Policy
		host   func(*hostgen.HostConfig)
		want   dcqcn.Params // zero: hostgen's default
	}{
		{"no policy", nil, caller, dcqcn.Params{}},
		{"static", control.Static{}, caller, dcqcn.Params{}},
		{"hosts' constants", hostTuned{h: h}, caller, h.Apply(dcqcn.DefaultParams(rate), rate)},
		{"without a caller's", hostTuned{h: h}, nil, h.Apply(dcqcn.DefaultParams(rate), rate)},
	} {
		c := WorkloadConfig{Policy: tc.policy, Host: tc.host}
		hc := hostgen.HostConfig{Fabric: f, Node: node}
		if fn := c.hostConfig(); fn != nil {
			fn(&hc)
		}
		if hc.DCQCN != tc.want {
			t.Errorf("%s: DCQCN %+v, want %+v", tc.name, hc.DCQCN, tc.want)
		}
		if hc.NoPropagationDelay != (tc.host != nil) {
			t.Errorf("%s: the caller's Host applied %v", tc.name, hc.NoPropagationDelay)
		}
	}
}
