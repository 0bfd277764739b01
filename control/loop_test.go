package control

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"graphcc/dcqcn"
	"graphcc/topo"
)

func loopFabric(t *testing.T) *topo.Fabric {
	t.Helper()
	c := topo.DefaultClos()
	c.Leaves, c.HostsPerLeaf = 2, 2
	f, err := topo.Clos(c)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// setAll is a policy that puts every port on one setting.
type setAll struct{ e ECN }

func (p setAll) Decide(_ *Telemetry, ecn []ECN) {
	for i := range ecn {
		ecn[i] = p.e
	}
}

// applied records the settings an actuator was given, or fails.
type applied struct {
	got [][]ECN
	err error
}

func (a *applied) ApplyECN(_ context.Context, ecn []ECN) error {
	if a.err != nil {
		return a.err
	}
	a.got = append(a.got, append([]ECN(nil), ecn...))
	return nil
}

func TestNewLoopErrors(t *testing.T) {
	f := loopFabric(t)
	bad := StaticSettings(f)
	bad[f.Agents()[1]].PMax = 2
	tests := []struct {
		name string
		c    LoopConfig
		want string
	}{
		{"no fabric", LoopConfig{}, "no fabric"},
		{"policy without actuator", LoopConfig{Fabric: f, Policy: Static{}}, "no actuator"},
		{"short settings", LoopConfig{Fabric: f, ECN: make([]ECN, 3)}, "3 ECN settings for"},
		{"invalid start", LoopConfig{Fabric: f, ECN: bad}, "starting setting of port"},
		{"a host's port", LoopConfig{Fabric: f, Ports: []topo.PortID{HostPorts(f)[0]}}, "not a switch egress port"},
		{"ports out of order", LoopConfig{Fabric: f, Ports: []topo.PortID{f.Agents()[2], f.Agents()[1]}}, "want increasing ports"},
		{"a port outside", LoopConfig{Fabric: f, Ports: []topo.PortID{topo.PortID(len(f.Ports))}}, "not a switch egress port"},
	}
	for _, tt := range tests {
		if _, err := NewLoop(tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

func TestLoopStep(t *testing.T) {
	f := loopFabric(t)
	next := ECN{KMin: 2 * KB, KMax: 16 * KB, PMax: 1}
	tests := []struct {
		name      string
		policy    Policy
		applyErr  error
		until     int64
		wantErr   string
		applies   int   // ApplyECN calls after two steps
		portSteps int64 // counted per agent
		queue     int   // queue-feature samples, in steps
	}{
		{"no policy records only", nil, nil, 0, "", 0, 0, 2},
		{"policy applied and counted", setAll{next}, nil, 0, "", 2, 2, 2},
		{"queue samples end", setAll{next}, nil, 150, "", 2, 2, 1},
		{"invalid setting names the port", setAll{ECN{KMin: 5, KMax: 4}}, nil, 0, "policy set port", 0, 0, 1},
		{"failed apply is not counted", setAll{next}, errors.New("switch gone"), 0, "switch gone", 0, 0, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			act := &applied{err: tt.applyErr}
			var trace strings.Builder
			l, err := NewLoop(LoopConfig{Fabric: f, Policy: tt.policy, Apply: act, Trace: &trace, QueueUntil: tt.until})
			if err != nil {
				t.Fatal(err)
			}
			tel := &Telemetry{Interval: 100, Ports: make([]PortSample, len(f.Ports))}
			for k := int64(1); k <= 2; k++ {
				tel.Now = 100 * k
				err = l.Step(t.Context(), tel)
				if err != nil {
					break
				}
			}
			if err := l.Flush(); err != nil {
				t.Fatal(err)
			}
			if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want %q", err, tt.wantErr)
			}
			if len(act.got) != tt.applies {
				t.Errorf("%d applies, want %d", len(act.got), tt.applies)
			}
			var steps int64
			for _, u := range l.Settings() {
				steps += u.PortSteps
			}
			if want := tt.portSteps * int64(len(f.Agents())); steps != want {
				t.Errorf("%d port-steps counted, want %d", steps, want)
			}
			if got, want := len(l.QueueFeatures()), tt.queue*len(f.Agents()); got != want {
				t.Errorf("%d queue-feature samples, want %d", got, want)
			}
			// Every step traced, with the settings in force during it.
			rows := strings.Split(strings.TrimSuffix(trace.String(), "\n"), "\n")
			if rows[0] != TraceHeader || len(rows) != 1+l.Steps()*len(f.Ports) {
				t.Fatalf("trace of %d lines for %d steps", len(rows), l.Steps())
			}
			a := int(f.Agents()[0])
			if first := rows[1+a]; !strings.Contains(first, ",100000,400000,0.2,") {
				t.Errorf("first interval's row %q lacks the starting setting", first)
			}
			if tt.applies == 2 {
				if second := rows[1+len(f.Ports)+a]; !strings.Contains(second, ",2000,16000,1,") {
					t.Errorf("second interval's row %q lacks the setting chosen after the first", second)
				}
			}
		})
	}
}

// TestLoopStepAllocs: without a trace, a step of a policy that keeps to
// settings already counted allocates nothing but the amortized growth of
// the queue-feature samples, also when it decides, checks and applies the
// hosts' constants.
func TestLoopStepAllocs(t *testing.T) {
	f := loopFabric(t)
	for _, tc := range []struct {
		name   string
		policy Policy
	}{
		{"switches", setAll{Alibaba(RefRate)}},
		{"switches and hosts", hostSetAll{setAll{Alibaba(RefRate)}, DefaultHostParams(), true}},
	} {
		l, err := NewLoop(LoopConfig{Fabric: f, Policy: tc.policy, Apply: nopActuator{}})
		if err != nil {
			t.Fatal(err)
		}
		tel := &Telemetry{Interval: 100, Ports: make([]PortSample, len(f.Ports))}
		if got := testing.AllocsPerRun(1000, func() {
			tel.Now += 100
			if err := l.Step(t.Context(), tel); err != nil {
				t.Fatal(err)
			}
		}); got != 0 {
			t.Errorf("%s: Step allocates %v times per call", tc.name, got)
		}
	}
}

// nopActuator applies nothing.
type nopActuator struct{}

func (nopActuator) ApplyECN(context.Context, []ECN) error { return nil }

// hostSetAll is a policy that also puts every host on one set of DCQCN
// constants.
type hostSetAll struct {
	setAll
	h      HostParams
	decide bool
}

func (p hostSetAll) DecidesHosts() bool { return p.decide }

func (p hostSetAll) DecideHosts(_ *Telemetry, hosts []HostParams) {
	for i := range hosts {
		hosts[i] = p.h
	}
}

// hostApplied records the settings and the hosts' constants it was given.
type hostApplied struct {
	applied
	hosts [][]HostParams
	err   error
}

func (a *hostApplied) ApplyHosts(_ context.Context, hosts []HostParams) error {
	if a.err != nil {
		return a.err
	}
	a.hosts = append(a.hosts, slices.Clone(hosts))
	return nil
}

func TestLoopHosts(t *testing.T) {
	f := loopFabric(t)
	fast := DefaultHostParams()
	fast.IncreaseInterval = 55 * dcqcn.Microsecond
	bad := fast
	bad.AI = 0
	shortHosts := make([]HostParams, 2)
	keep := setAll{Alibaba(RefRate)}
	tests := []struct {
		name     string
		policy   Policy
		act      Actuator
		hosts    []HostParams
		newErr   string
		stepErr  string
		applies  int // ApplyHosts calls after two steps
		wantHost HostParams
	}{
		{"decider applied", hostSetAll{keep, fast, true}, &hostApplied{}, nil, "", "", 2, fast},
		{"not deciding: no host apply", hostSetAll{keep, fast, false}, &hostApplied{}, nil, "", "", 0, HostParams{}},
		{"actuator without hosts", hostSetAll{keep, fast, true}, &applied{}, nil, "cannot apply them", "", 0, HostParams{}},
		{"short starting constants", hostSetAll{keep, fast, true}, &hostApplied{}, shortHosts, "2 hosts' DCQCN constants for", "", 0, HostParams{}},
		{"invalid starting constants", hostSetAll{keep, fast, true}, &hostApplied{}, make([]HostParams, len(f.Ports)), "starting constants of port", "", 0, HostParams{}},
		{"invalid constants name the port", hostSetAll{keep, bad, true}, &hostApplied{}, nil, "", "DCQCN constants of port", 0, HostParams{}},
		{"failed apply", hostSetAll{keep, fast, true}, &hostApplied{err: errors.New("host gone")}, nil, "", "host gone", 0, HostParams{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := NewLoop(LoopConfig{Fabric: f, Policy: tt.policy, Apply: tt.act, Hosts: tt.hosts})
			if (err == nil) != (tt.newErr == "") || err != nil && !strings.Contains(err.Error(), tt.newErr) {
				t.Fatalf("NewLoop error %v, want %q", err, tt.newErr)
			}
			if err != nil {
				return
			}
			tel := &Telemetry{Interval: 100, Ports: make([]PortSample, len(f.Ports))}
			for k := int64(1); k <= 2 && err == nil; k++ {
				tel.Now = 100 * k
				err = l.Step(t.Context(), tel)
			}
			if (err == nil) != (tt.stepErr == "") || err != nil && !strings.Contains(err.Error(), tt.stepErr) {
				t.Fatalf("Step error %v, want %q", err, tt.stepErr)
			}
			a, _ := tt.act.(*hostApplied)
			if len(a.hosts) != tt.applies {
				t.Fatalf("%d host applies, want %d", len(a.hosts), tt.applies)
			}
			if tt.applies == 0 {
				return
			}
			if len(a.applied.got) != len(a.hosts) {
				t.Errorf("%d ECN applies for %d host applies", len(a.applied.got), len(a.hosts))
			}
			for _, p := range HostPorts(f) {
				if got := a.hosts[0][p]; got != tt.wantHost {
					t.Errorf("port %d: applied %+v, want %+v", p, got, tt.wantHost)
				}
				if got := l.Hosts()[p]; got != tt.wantHost {
					t.Errorf("port %d: loop holds %+v, want %+v", p, got, tt.wantHost)
				}
			}
		})
	}
}

// TestLoopHostsStart: without starting constants, a decider starts from its
// own HostParams (HostTuner) or else from the defaults.
func TestLoopHostsStart(t *testing.T) {
	f := loopFabric(t)
	own := DefaultHostParams()
	own.AI = 20 * dcqcn.Mbps
	for _, tc := range []struct {
		policy Policy
		want   HostParams
	}{
		{hostSetAll{setAll{Alibaba(RefRate)}, own, true}, DefaultHostParams()},
		{tunedDecider{hostSetAll{setAll{Alibaba(RefRate)}, own, true}, own}, own},
	} {
		l, err := NewLoop(LoopConfig{Fabric: f, Policy: tc.policy, Apply: &hostApplied{}})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range HostPorts(f) {
			if got := l.Hosts()[p]; got != tc.want {
				t.Errorf("%T: port %d starts with %+v, want %+v", tc.policy, p, got, tc.want)
			}
		}
	}
}

// tunedDecider is a HostDecider that is also a HostTuner.
type tunedDecider struct {
	hostSetAll
	h HostParams
}

func (p tunedDecider) HostParams() (HostParams, bool) { return p.h, true }

func (nopActuator) ApplyHosts(context.Context, []HostParams) error { return nil }

// TestLoopPorts: a loop of a port subset (a per-switch agent's) samples,
// checks and counts only its ports, and Commit without a policy applies
// the writer's settings through the actuator.
func TestLoopPorts(t *testing.T) {
	f := loopFabric(t)
	sw := f.Switches()[0]
	own := slices.Clone(f.Out(sw))
	tests := []struct {
		name      string
		write     ECN
		wantErr   string
		portSteps int64
	}{
		{"valid", ECN{KMin: 2 * KB, KMax: 16 * KB, PMax: 1}, "", int64(len(own))},
		{"invalid", ECN{KMin: 2 * KB, KMax: 16 * KB, PMax: 2}, "policy set port", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &applied{}
			l, err := NewLoop(LoopConfig{Fabric: f, Ports: own, Apply: a, QueueUntil: 150})
			if err != nil {
				t.Fatal(err)
			}
			for _, now := range []int64{100, 200} {
				tel := &Telemetry{Now: now, Interval: 100, Ports: make([]PortSample, len(f.Ports))}
				for i := range tel.Ports {
					tel.Ports[i].QueueBytes = int64(i)
				}
				l.Observe(tel)
			}
			if got := l.QueueBytes(); l.QueueSteps() != 1 || len(got) != len(own) || got[0] != int64(own[0]) {
				t.Errorf("queue samples %v over %d steps, want one step of the %d own ports", got, l.QueueSteps(), len(own))
			}
			err = l.Commit(context.Background(), 200, func(ecn []ECN, _ []HostParams) {
				for _, p := range own {
					ecn[p] = tt.write
				}
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || len(a.got) != 0 {
					t.Errorf("commit: %v, %d applies; want an error with %q and none", err, len(a.got), tt.wantErr)
				}
				return
			}
			if err != nil || len(a.got) != 1 || a.got[0][own[0]] != tt.write {
				t.Fatalf("commit: %v, applied %d times", err, len(a.got))
			}
			var n int64
			for _, u := range l.Settings() {
				n += u.PortSteps
			}
			if n != tt.portSteps || l.Steps() != 2 {
				t.Errorf("%d port-steps counted over %d steps, want %d over 2", n, l.Steps(), tt.portSteps)
			}
		})
	}
	l, err := NewLoop(LoopConfig{Fabric: f})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Commit(context.Background(), 0, func([]ECN, []HostParams) {}); err == nil {
		t.Error("commit without an actuator: no error")
	}
}
