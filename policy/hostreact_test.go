package policy

import (
	"bytes"
	"context"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

// TestHostReactRule: each host gets busy when its own NIC port sent at
// least the threshold of its line rate in the interval, calm otherwise;
// the switches keep their setting.
func TestHostReactRule(t *testing.T) {
	f := testfabric.Clos(t)
	calm, busy := control.DefaultHostParams(), control.DefaultHostParams()
	busy.IncreaseInterval = 55 * topo.Microsecond
	e := control.ECN{KMin: 2 * control.KB, KMax: 32 * control.KB, PMax: 0.01}
	pol, ecn, err := HostReact(e, 0.5, calm, busy)(f, testfabric.TinyScenario(), 1)
	if err != nil {
		t.Fatal(err)
	}
	d, ok := control.HostDeciderOf(pol)
	if !ok {
		t.Fatal("hostreact does not decide the hosts' constants")
	}
	if h, ok := control.HostParamsOf(pol); !ok || h != calm {
		t.Errorf("hosts start on %+v (%v), want calm", h, ok)
	}
	ports := control.HostPorts(f)
	const dt = 10 * topo.Microsecond
	full := func(p topo.PortID) int64 { return f.Ports[p].Rate / 8 * dt / topo.Second } // bytes at line rate
	tests := []struct {
		name string
		tx   float64 // fraction of line rate sent by the first host
		want control.HostParams
	}{
		{"idle", 0, calm},
		{"below", 0.49, calm},
		{"at the threshold", 0.5, busy},
		{"line rate", 1, busy},
	}
	for _, tt := range tests {
		tel := &control.Telemetry{Interval: dt, Ports: make([]control.PortSample, len(f.Ports))}
		tel.Ports[ports[0]].TxBytes = int64(tt.tx * float64(full(ports[0])))
		hosts := make([]control.HostParams, len(f.Ports))
		next := append([]control.ECN(nil), ecn...)
		pol.Decide(tel, next)
		d.DecideHosts(tel, hosts)
		if hosts[ports[0]] != tt.want {
			t.Errorf("%s: first host on %+v, want %+v", tt.name, hosts[ports[0]], tt.want)
		}
		if hosts[ports[1]] != calm {
			t.Errorf("%s: an idle host on %+v, want calm", tt.name, hosts[ports[1]])
		}
		if !bytes.Equal([]byte(ecnString(next)), []byte(ecnString(ecn))) {
			t.Errorf("%s: the switches' settings changed", tt.name)
		}
	}
}

func ecnString(ecn []control.ECN) string {
	var b bytes.Buffer
	for _, e := range ecn {
		b.WriteString(e.String())
	}
	return b.String()
}

// TestHostReactInSimulator: hostreact whose two sets of constants are one
// runs byte for byte as the fixed spec with those constants; with two
// different sets it changes the run.
func TestHostReactInSimulator(t *testing.T) {
	sc := testfabric.TinyScenario()
	f, flows, err := sc.Build(3)
	if err != nil {
		t.Fatal(err)
	}
	run := func(spec string) []byte {
		t.Helper()
		pol, ecn, err := must(Parse(context.Background(), spec, Env{})).New(f, sc, 3)
		if err != nil {
			t.Fatal(err)
		}
		res, err := replay.Run(replay.Config{Fabric: f, Flows: flows, Seed: 3, ECN: ecn, Policy: pol})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := trace.WriteFCT(&b, res.FCT); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	fixed := run("static:2,32,0.01+dcqcn:55,1,4,5,50")
	if !bytes.Equal(fixed, run("hostreact:2,32,0.01:0.3:55,1,4,5,50:55,1,4,5,50")) {
		t.Error("hostreact with one set of constants runs otherwise than the fixed spec")
	}
	if bytes.Equal(fixed, run("hostreact:2,32,0.01:0.3:55,1,4,5,50:1000,1,4,5,50")) {
		t.Error("hostreact with two sets of constants runs as the fixed spec")
	}
}
