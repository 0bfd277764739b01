package scenario

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// TestRecordFields fails when Scenario, workload.GenConfig or
// workload.Phase gain a field, which Record must then carry too.
func TestRecordFields(t *testing.T) {
	for _, tc := range []struct {
		typ  reflect.Type
		want int
	}{
		{reflect.TypeFor[Scenario](), 13},
		{reflect.TypeFor[Scenario]().Field(7).Type, 7}, // Gen: Seed is not recorded
		{reflect.TypeFor[PhaseRecord](), 4},
		{reflect.TypeFor[Event](), 3},
	} {
		if got := tc.typ.NumField(); got != tc.want {
			t.Errorf("%v has %d fields, Record knows %d: record the new ones (and update this test)", tc.typ, got, tc.want)
		}
	}
}

// TestRecordRoundTrip records every built-in scenario, one on a topology
// file, a phased one with failures, a family's draw and a recorded trace, through JSON and
// back: the same
// scenario, and the same JSON again.
func TestRecordRoundTrip(t *testing.T) {
	const topoText = "5 2 4\n3 4\n0 3 25Gbps 0.001ms 0\n1 3 25Gbps 0.001ms 0\n2 4 25Gbps 0.001ms 0\n3 4 100Gbps 0.0015ms 0\n"
	fab, err := topo.ReadTopology(strings.NewReader(topoText), "t.txt", 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	onTopo := Default()
	onTopo.Name, onTopo.Topology, onTopo.TopologyName, onTopo.Clos = "on-topo", fab, "t.txt", topo.ClosConfig{}
	failing := Default()
	failing.Name, failing.Fail, failing.FailRandom, failing.HeldOut = "failing", []string{"leaf0-spine1"}, 2, true
	failing.Events = []Event{{At: 5 * topo.Millisecond, Link: "leaf1-spine0"}, {At: 15 * topo.Millisecond, Link: "leaf1-spine0", Up: true}}
	drawn, err := ByName("family-10001") // mixtures, a link event, held out with a reason
	if err != nil {
		t.Fatal(err)
	}
	recorded := traceScenario(t, 5*topo.Millisecond)
	for _, s := range append(Suite(), onTopo, failing, drawn, recorded) {
		t.Run(s.Name, func(t *testing.T) {
			r, err := NewRecord(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			var back Record
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			got, err := back.Scenario()
			if err != nil {
				t.Fatal(err)
			}
			r2, err := NewRecord(got)
			if err != nil {
				t.Fatal(err)
			}
			if s.Topology != nil {
				var want, have bytes.Buffer
				s.Topology.WriteTopology(&want)
				got.Topology.WriteTopology(&have)
				if want.String() != have.String() || got.Topology.Buffer != s.Topology.Buffer {
					t.Errorf("topology %q buffer %d, want %q buffer %d", have.String(), got.Topology.Buffer, want.String(), s.Topology.Buffer)
				}
				got.Topology, s.Topology = nil, nil
			}
			s.Gen.Seed = 0
			if !reflect.DeepEqual(got, s) {
				t.Errorf("round trip:\n got %+v\nwant %+v", got, s)
			}
			if b2, _ := json.Marshal(r2); !bytes.Equal(b, b2) {
				t.Errorf("JSON changed in a round trip:\n%s\n%s", b, b2)
			}
		})
	}
}

func TestRecordErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Record
		want string
	}{
		{"no name", Record{}, "without a name"},
		{"bad topology", Record{Name: "x", Topology: "1 0 0\n"}, "scenario x topology"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.r.Scenario(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// traceScenario is the default scenario with, for traffic, its flows of
// seed 1 in windows of length.
func traceScenario(t *testing.T, length int64) Scenario {
	t.Helper()
	s := Default()
	f, flows, err := s.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := trace.WriteFlows(&b, flows); err != nil {
		t.Fatal(err)
	}
	if s.Trace, err = trace.ReadWindows(&b, "flow.txt", f, length); err != nil {
		t.Fatal(err)
	}
	s.Name, s.TraceName, s.Gen = "recorded", "flow.txt", workload.GenConfig{Duration: length}
	return s
}
