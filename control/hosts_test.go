package control

import (
	"strings"
	"testing"

	"graphcc/dcqcn"
)

func TestHostParamsValidate(t *testing.T) {
	us, mbps := dcqcn.Microsecond, dcqcn.Mbps
	for _, tc := range []struct {
		edit func(*HostParams)
		err  string // "" for valid
	}{
		{func(*HostParams) {}, ""},
		{func(h *HostParams) { h.IncreaseInterval = 55 * us }, ""},
		{func(h *HostParams) { h.IncreaseInterval = 131071 * us; h.AlphaInterval = 131071 * us }, ""},
		{func(h *HostParams) { h.IncreaseInterval = 131072 * us }, "rate-increase timer 131072 µs"},
		{func(h *HostParams) { h.AlphaInterval = 0 }, "alpha period 0 µs"},
		{func(h *HostParams) { h.DecreaseInterval = us / 2 }, "decrease period 0.5 µs"},
		{func(h *HostParams) { h.AI = 0 }, "additive increase 0 Mbps"},
		{func(h *HostParams) { h.HAI = 25001 * mbps }, "hyper increase 25001 Mbps"},
		{func(h *HostParams) { h.IncreaseInterval = 4 * us }, "must exceed the decrease period"},
	} {
		h := DefaultHostParams()
		tc.edit(&h)
		err := h.Validate()
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%+v: %v, want %q", h, err, tc.err)
		}
	}
}

func TestHostParamsApply(t *testing.T) {
	d := dcqcn.DefaultParams(RefRate)
	if got := DefaultHostParams().Apply(d, RefRate); got != d {
		t.Errorf("the preset applied changes the preset:\n%+v\n%+v", got, d)
	}
	h := DefaultHostParams()
	h.IncreaseInterval, h.AI, h.HAI = 55*dcqcn.Microsecond, 10*dcqcn.Mbps, 100*dcqcn.Mbps
	p := h.Apply(dcqcn.DefaultParams(100*dcqcn.Gbps), 100*dcqcn.Gbps)
	if p.IncreaseInterval != 55*dcqcn.Microsecond || p.AI != 40*dcqcn.Mbps || p.HAI != 400*dcqcn.Mbps || p.G != dcqcn.DefaultG {
		t.Errorf("at 100 Gbps: %+v", p)
	}
}

// hostPolicy is a HostTuner for the test.
type hostPolicy struct {
	Static
	h  HostParams
	ok bool
}

func (p hostPolicy) HostParams() (HostParams, bool) { return p.h, p.ok }

func TestHostParamsOf(t *testing.T) {
	h := DefaultHostParams()
	h.AI = 7 * dcqcn.Mbps
	for _, tc := range []struct {
		p    Policy
		want bool
	}{
		{nil, false}, {Static{}, false}, {hostPolicy{h: h, ok: true}, true}, {hostPolicy{h: h}, false},
	} {
		got, ok := HostParamsOf(tc.p)
		if ok != tc.want || ok && got != h {
			t.Errorf("%T: %+v, %v", tc.p, got, ok)
		}
	}
}

func TestHostParamsAt(t *testing.T) {
	fast := DefaultHostParams()
	fast.IncreaseInterval, fast.AI, fast.HAI = 55*dcqcn.Microsecond, 40*dcqcn.Mbps, 400*dcqcn.Mbps
	for _, rate := range []int64{RefRate, 4 * RefRate, 10 * dcqcn.Gbps} {
		for _, h := range []HostParams{DefaultHostParams(), fast} {
			if got := HostParamsAt(h.Apply(dcqcn.DefaultParams(rate), rate), rate); got != h {
				t.Errorf("at %d bps: %+v back as %+v", rate, h, got)
			}
		}
	}
}

func TestHostPortsAndDecider(t *testing.T) {
	f := loopFabric(t)
	ports := HostPorts(f)
	if len(ports) != len(f.Hosts()) {
		t.Fatalf("%d host ports for %d hosts", len(ports), len(f.Hosts()))
	}
	for i, p := range ports {
		if src := f.Ports[p].Src; src != f.Hosts()[i] || f.Nodes[src].Switch {
			t.Errorf("host port %d leaves node %d, want host %d", p, src, f.Hosts()[i])
		}
	}
	for _, tc := range []struct {
		p    Policy
		want bool
	}{
		{Static{}, false},
		{hostSetAll{decide: false}, false},
		{hostSetAll{decide: true}, true},
	} {
		if _, ok := HostDeciderOf(tc.p); ok != tc.want {
			t.Errorf("HostDeciderOf(%T %+v) = %v, want %v", tc.p, tc.p, ok, tc.want)
		}
	}
}
