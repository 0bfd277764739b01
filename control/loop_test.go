package control

import (
	"context"
	"errors"
	"strings"
	"testing"

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
// the queue-feature samples.
func TestLoopStepAllocs(t *testing.T) {
	f := loopFabric(t)
	l, err := NewLoop(LoopConfig{Fabric: f, Policy: setAll{Alibaba(RefRate)}, Apply: nopActuator{}})
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
		t.Errorf("Step allocates %v times per call", got)
	}
}

// nopActuator applies nothing.
type nopActuator struct{}

func (nopActuator) ApplyECN(context.Context, []ECN) error { return nil }
