package experiment

import (
	"context"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/policy"
	"graphcc/replay"
)

// TestDefaultYardstick: the shipped joint tune is the default yardstick
// on the hardware it was tuned on (the simulator's default), the
// switch-only one where only the hosts' DCQCN constants differ, and none
// on other hardware, the note saying why.
func TestDefaultYardstick(t *testing.T) {
	def := replay.DefaultParams()
	with := func(f func(p *replay.Params)) replay.Params {
		p := def
		f(&p)
		return p
	}
	for _, tc := range []struct {
		name     string
		params   replay.Params
		interval int64
		spec     string
		note     []string // what the note must say
	}{
		{name: "zero values", spec: "tuned:joint", note: []string{"static:0.5,32,0.125+dcqcn:55,55,2,5,25", "models/tuned-joint-global.json"}},
		{name: "default", params: def, interval: control.DefaultInterval, spec: "tuned:joint", note: []string{"tuned joint configuration"}},
		{name: "hosts' AI", params: with(func(p *replay.Params) { p.DCQCN.AI *= 2 }), spec: "tuned:switch",
			note: []string{"static:1,32,0.177", "models/tuned-global.json", "params.DCQCN.AI 5000000, here 10000000"}},
		{name: "hosts' g and rate timer", params: with(func(p *replay.Params) { p.DCQCN.G, p.DCQCN.IncreaseInterval = 1.0/16, 55e6 }), spec: "tuned:switch",
			note: []string{"params.DCQCN.G", "params.DCQCN.IncreaseInterval"}},
		{name: "no PFC", params: with(func(p *replay.Params) { p.PFC = false }), note: []string{"No tuned yardstick", "params.PFC true, here false"}},
		{name: "no ECN", params: with(func(p *replay.Params) { p.ECN = false }), note: []string{"params.ECN true, here false"}},
		{name: "window", params: with(func(p *replay.Params) { p.Window = -1 }), note: []string{"params.Window 0, here -1"}},
		{name: "interval", interval: 2 * control.DefaultInterval, note: []string{"interval_ps 100000000, here 200000000"}},
		{name: "no PFC, other hosts", params: with(func(p *replay.Params) { p.PFC, p.DCQCN.AI = false, 1 }), note: []string{"params.PFC", "params.DCQCN.AI"}},
	} {
		spec, note, err := DefaultYardstick(tc.params, tc.interval)
		if err != nil {
			t.Fatal(err)
		}
		if spec != tc.spec || strings.Contains(note, "\n") {
			t.Errorf("%s: %q (%q), want %q on one line", tc.name, spec, note, tc.spec)
		}
		for _, w := range tc.note {
			if !strings.Contains(note, w) {
				t.Errorf("%s: note %q lacks %q", tc.name, note, w)
			}
		}
	}
}

// TestResolveAutoYardsticks: AutoYardsticks adds static and the default
// tuned yardstick of the Config's hardware to the runs when not among the
// policies, with its note; none, with the note, on other hardware; "" none
// and no note.
func TestResolveAutoYardsticks(t *testing.T) {
	noPFC := replay.DefaultParams()
	noPFC.PFC = false
	for _, tc := range []struct {
		s          PolicySpecs
		params     replay.Params
		policies   []string
		yardsticks []string
		note       string
	}{
		{s: PolicySpecs{Policies: []string{"graphcc"}, Yardsticks: AutoYardsticks},
			policies: []string{"graphcc", "static", "tuned:joint"}, yardsticks: []string{"static", "tuned:joint"}, note: "Yardstick tuned:joint"},
		{s: PolicySpecs{Policies: []string{"tuned:joint,static,graphcc"}, Yardsticks: AutoYardsticks},
			policies: []string{"tuned:joint", "static", "graphcc"}, yardsticks: []string{"static", "tuned:joint"}, note: "Yardstick tuned:joint"},
		{s: PolicySpecs{Policies: []string{"graphcc"}, Yardsticks: AutoYardsticks}, params: noPFC, policies: []string{"graphcc"}, note: "No tuned yardstick"},
		{s: PolicySpecs{Policies: []string{"graphcc"}}, policies: []string{"graphcc"}},
		{s: PolicySpecs{Policies: []string{"graphcc"}, Yardsticks: "tuned:switch"},
			policies: []string{"graphcc", "static", "tuned:switch"}, yardsticks: []string{"static", "tuned:switch"}},
	} {
		c := Config{Params: tc.params, YardstickNote: "left from before"}
		if err := tc.s.Resolve(context.Background(), policy.Env{}, &c, "--"); err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range c.Policies {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, tc.policies) || !slices.Equal(c.Yardsticks, tc.yardsticks) ||
			!strings.HasPrefix(c.YardstickNote, tc.note) || (tc.note == "") != (c.YardstickNote == "") {
			t.Errorf("%+v: policies %v, yardsticks %v, note %q; want %v, %v, %q", tc.s, names, c.Yardsticks, c.YardstickNote, tc.policies, tc.yardsticks, tc.note)
		}
	}
}
