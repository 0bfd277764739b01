package agent

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/topo"
)

// floorBase is a fixed base of f that is none of the models' actions: an
// odd setting on the ports facing a switch, Alibaba's on the others.
func floorBase(f *topo.Fabric) []control.ECN {
	b := control.StaticSettings(f)
	for i, p := range f.Ports {
		if f.Nodes[p.Src].Switch && f.Nodes[p.Dst].Switch {
			b[i] = control.ECN{KMin: 17 * control.KB, KMax: 65 * control.KB, PMax: 0.37}
		}
	}
	return b
}

// TestAgentsFloorMatchShadow: agents held to a fixed base on fake
// switches decide every port (and with a host head every host) as the
// central gnn.Floor shadowing them, at a margin some ports pass and
// others not; at margin +inf every port stays on the base and every host
// on its starting constants.
func TestAgentsFloorMatchShadow(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		name   string
		model  func(*testing.T) *gnn.Model
		margin float64
	}{
		{"shipped model", embedded, 20},
		{"shipped model, +inf", embedded, inf},
		{"host head", hostHeadModel, 0.02},
		{"host head, +inf", hostHeadModel, inf},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := defaultClos(t, nil)
			base := floorBase(f)
			fl := &Floor{Gates: gnn.FloorGates{Margin: tc.margin, HostMargin: tc.margin, HoldLinks: true, LinkHold: topo.Millisecond}, Base: base}
			a := &agentsRun{f: f, m: tc.model(t), roundOut: 5 * time.Second, floor: fl}
			const steps = 10
			a.run(t, steps, 20*time.Millisecond)
			for name, err := range a.errs {
				if err != nil {
					t.Errorf("agent of %s: %v", name, err)
				}
			}
			st := a.shadow.Stats()
			if st.Mismatches != 0 || st.HostMismatches != 0 || st.Late != 0 || st.StaticPort != 0 {
				t.Errorf("mismatches %d, host mismatches %d, late %d, static port-steps %d: want all 0", st.Mismatches, st.HostMismatches, st.Late, st.StaticPort)
			}
			onBase, off := floorCount(t, a, base)
			switch {
			case math.IsInf(tc.margin, 1) && off != 0:
				t.Errorf("margin +inf: %d port- and host-steps off the base", off)
			case !math.IsInf(tc.margin, 1) && (off == 0 || onBase == 0):
				t.Errorf("margin %g: %d port- and host-steps on the base, %d off: the gate was not exercised both ways", tc.margin, onBase, off)
			}
			if a.m.HostActions > 0 && !math.IsInf(tc.margin, 1) {
				checkHostsMatch(t, a, steps)
			}
		})
	}
}

// floorCount counts the port- and host-steps the agents' reports chose on
// the base (its settings, the hosts' starting constants) and off it, and
// checks that every agent's applied settings are its chosen ones.
func floorCount(t *testing.T, a *agentsRun, base []control.ECN) (onBase, off int) {
	t.Helper()
	hosts := a.floor.Hosts
	for name, rs := range a.reports {
		for _, r := range rs {
			if !reflect.DeepEqual(r.Chosen, r.Applied) {
				t.Errorf("%s step %d: applied %v, chose %v", name, r.Step, r.Applied, r.Chosen)
			}
			for k, e := range r.Chosen {
				if e == base[r.Ports[k]] {
					onBase++
				} else {
					off++
				}
			}
			for k, h := range r.Hosts {
				if h == hosts[r.Ports[len(r.Chosen)+k]] {
					onBase++
				} else {
					off++
				}
			}
		}
	}
	return onBase, off
}

// TestAgentFloorKilled: with a floor, the spines' fallback after a leaf's
// agent dies holds their ports on the base's settings, not the static
// ones.
func TestAgentFloorKilled(t *testing.T) {
	f := defaultClos(t, nil)
	base := floorBase(f)
	a := &agentsRun{f: f, m: embedded(t), roundOut: 30 * time.Millisecond, kill: "leaf1", killAfter: 3,
		floor: &Floor{Gates: gnn.UniformGates(math.Inf(-1)), Base: base}}
	a.run(t, 10, 100*time.Millisecond)
	static := 0
	for name, rs := range a.reports {
		for _, r := range rs {
			if !r.Static {
				continue
			}
			static++
			for k, e := range r.Applied {
				if e != base[r.Ports[k]] {
					t.Errorf("%s step %d: fell back to %+v on port %d, not the base's %+v", name, r.Step, e, r.Ports[k], base[r.Ports[k]])
				}
			}
		}
	}
	if static == 0 {
		t.Error("no agent fell back")
	}
}

// TestFloorFile: a floor goes through its file with infinite margins and
// the hosts' constants, and ReadFloor refuses files that do not fit.
func TestFloorFile(t *testing.T) {
	f := defaultClos(t, nil)
	dir := t.TempDir()
	for _, fl := range []*Floor{
		{Gates: gnn.FloorGates{Margin: math.Inf(1), HostMargin: math.Inf(-1), HoldLinks: true, LinkHold: 5 * topo.Millisecond}, Base: floorBase(f), Hosts: base(f)},
		{Gates: gnn.UniformGates(30), Base: control.StaticSettings(f)},
	} {
		path := filepath.Join(dir, "floor.json")
		if err := WriteFloor(path, fl); err != nil {
			t.Fatal(err)
		}
		got, err := ReadFloor(path, f)
		if err != nil || !reflect.DeepEqual(got, fl) {
			t.Errorf("ReadFloor: %+v, %v; want %+v", got, err, fl)
		}
	}
	small := defaultClos(t, []string{"leaf0-spine1"})
	bad := base(f)
	bad[control.HostPorts(f)[0]] = control.HostParams{}
	for _, tc := range []struct {
		fl   *Floor
		f    *topo.Fabric
		want string
	}{
		{&Floor{Gates: gnn.UniformGates(1), Base: control.StaticSettings(f)[:4]}, f, "4 base settings"},
		{&Floor{Gates: gnn.UniformGates(1), Base: floorBase(f), Hosts: bad}, f, "hosts' base constants of port"},
		{&Floor{Gates: gnn.FloorGates{LinkHold: -1}, Base: floorBase(f)}, f, "negative link hold"},
		{&Floor{Gates: gnn.UniformGates(math.NaN()), Base: floorBase(f)}, f, "is not a number"},
		{&Floor{Gates: gnn.UniformGates(1), Base: floorBase(f)}, small, fmt.Sprintf("for %d ports", len(small.Ports))},
	} {
		path := filepath.Join(dir, "bad.json")
		if err := WriteFloor(path, tc.fl); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFloor(path, tc.f); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadFloor(%+v): %v; want %q", tc.fl.Gates, err, tc.want)
		}
	}
}
