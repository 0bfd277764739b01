package policy

import (
	"reflect"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/scenario"
	"graphcc/topo"
)

func TestFixedPolicyScales(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	_, ecn, err := Fixed(control.Alibaba(control.RefRate))(f, scenario.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ecn, control.StaticSettings(f)) {
		t.Error("Fixed(Alibaba at 25G) differs from the static settings")
	}
	if _, _, err := Fixed(control.ECN{KMin: 2, KMax: 1})(f, scenario.Default(), 1); err == nil {
		t.Error("Fixed accepted kmax < kmin")
	}
}

// TestEdgePolicy: host-facing switch ports get the first setting, the
// ports between switches the second, each scaled by rate; host NICs keep
// Alibaba's; one setting for both is Fixed's; bad settings are
// refused, each named.
func TestEdgePolicy(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	host := control.ECN{KMin: 2 * control.KB, KMax: 32 * control.KB, PMax: 0.01}
	sw := control.ECN{KMin: 16 * control.KB, KMax: 64 * control.KB, PMax: 0.5}
	pol, ecn, err := Edge(host, sw)(f, scenario.Default(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := pol.(control.Static); !ok {
		t.Errorf("policy %T, want control.Static", pol)
	}
	hostAll, swAll, static := ScaledECN(f, host), ScaledECN(f, sw), control.StaticSettings(f)
	var nHost, nSwitch int
	for i, p := range f.Ports {
		var want control.ECN
		switch {
		case !f.Nodes[p.Src].Switch:
			want = static[i]
		case !f.Nodes[p.Dst].Switch:
			want, nHost = hostAll[i], nHost+1
		default:
			want, nSwitch = swAll[i], nSwitch+1
		}
		if ecn[i] != want {
			t.Errorf("port %d (%s to %s, %d Gb/s): %v, want %v", i, f.Nodes[p.Src].Name, f.Nodes[p.Dst].Name, p.Rate/1e9, ecn[i], want)
		}
	}
	if nHost != 24 || nSwitch != 16 {
		t.Errorf("%d host-facing and %d switch-facing ports, want 24 and 16", nHost, nSwitch)
	}
	if _, up, _ := Edge(sw, sw)(f, scenario.Default(), 1); !reflect.DeepEqual(up, swAll) {
		t.Error("Edge(e, e) differs from Fixed(e)")
	}
	bad := control.ECN{KMin: 2, KMax: 1}
	for _, tc := range []struct {
		host, sw control.ECN
		want     string
	}{
		{bad, sw, "ports facing a host"},
		{host, bad, "ports facing a switch"},
	} {
		if _, _, err := Edge(tc.host, tc.sw)(f, scenario.Default(), 1); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Edge(%v, %v): %v, want an error naming %q", tc.host, tc.sw, err, tc.want)
		}
	}
}
