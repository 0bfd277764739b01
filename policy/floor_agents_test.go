package policy

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/internal/testfabric"
)

// floorAgentSpecs are floors over fixed bases: the shipped default's
// shape (margins per head, a link hold, the tuned joint constants and a
// host-head model), a switch-only one, and one whose gate passes some
// ports and not others in the simulator (TestFloorRunsAsItsBounds).
var floorAgentSpecs = []string{
	"floor:30/10/5ms:tuned:../models/tuned-joint-global.json@graphcc:../models/graphcc-hosts.model",
	"floor:15:static:2,32,0.01",
	"floor:10:static",
	"floor:10/1:edge:2,32,0.01:16,64,0.5+dcqcn:" + fbHosts + "@graphcc:../models/graphcc-hosts.model",
}

// TestFloorPerSwitch: a floor over a fixed base runs as per-switch agents
// (ideal delivery, and messages as packets), with the base's hosts'
// constants, and with ideal delivery runs byte for byte as the central
// floor in the simulator (FCT records and the telemetry trace).
func TestFloorPerSwitch(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, _, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, spec := range floorAgentSpecs {
		t.Run(spec, func(t *testing.T) {
			central := runSpec(t, spec, false)
			np := must(Parse(context.Background(), spec, Env{}))
			for _, agents := range []string{AgentsIdeal, AgentsPerSwitch} {
				pol, ecn, err := np.New(f, sc, 3)
				if err != nil {
					t.Fatal(err)
				}
				wantH, wantOK := control.HostParamsOf(pol)
				ap, err := WithAgents(pol, f, agents, gnn.InBandConfig{Misses: control.DefaultMissLimit})
				if err != nil {
					t.Fatalf("%s: %v", agents, err)
				}
				if h, ok := control.HostParamsOf(ap); h != wantH || ok != wantOK {
					t.Errorf("%s: hosts' constants %+v %v, the floor's %+v %v", agents, h, ok, wantH, wantOK)
				}
				switch ap := ap.(type) {
				case *gnn.PerSwitch:
					if agents != AgentsIdeal || len(ap.Floors()) != len(f.Switches()) {
						t.Fatalf("%s: %d floors for %d switches", agents, len(ap.Floors()), len(f.Switches()))
					}
					if got := runSched(t, ap, ecn); !bytes.Equal(got.bytes, central.bytes) {
						t.Errorf("%s runs otherwise than the central floor", agents)
					}
				case *gnn.InBand:
					if agents != AgentsPerSwitch {
						t.Fatalf("%s: %T", agents, ap)
					}
					if got := runSched(t, ap, ecn); len(got.fct) != len(central.fct) {
						t.Errorf("%s: %d flows completed, central %d", agents, len(got.fct), len(central.fct))
					}
				default:
					t.Fatalf("%s: %T", agents, ap)
				}
			}
		})
	}
}

// TestFloorPerSwitchRefuses: a floor whose base changes over time is
// refused for per-switch agents, naming the base, and the spec.
func TestFloorPerSwitchRefuses(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, err := sc.Fabric(1)
	if err != nil {
		t.Fatal(err)
	}
	for base, name := range map[string]string{
		"sched:0=2,32,0.01:500us=32,256,0.75":                        "not to sched",
		"react:8:32,128,0.5:2,16,1":                                  "not to react",
		"react:8:32,128,0.5:2,16,1+dcqcn:" + fbHosts:                 "not to react",
		"hostreact:2,32,0.01:0.5:300,1,4,5,50:55,1,4,5,50":           "not to hostreact",
		"tuned:../models/tuned-joint-global.json@graphcc:nope.model": "nope.model",
	} {
		for _, agents := range []string{AgentsIdeal, AgentsPerSwitch} {
			spec := "floor:1:" + base
			s := RunSpec{Spec: spec, Agents: agents, InBand: gnn.DefaultInBandSettings(), Interval: "100us"}
			_, err := s.Resolve(context.Background(), "--policy", Env{}, f, sc, 1, "--")
			if err == nil || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), spec) {
				t.Errorf("%s with %s: %v; want an error naming %q and the spec", agents, spec, err, name)
			}
		}
	}
}
