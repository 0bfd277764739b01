package progress

import (
	"bytes"
	"testing"
	"time"
)

// TestOffTerminal: off a terminal a simulation prints one line at its end
// if it was long (and none if it failed), and a meter a line per item
// finished.
func TestOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := NewSim(&buf, 10, 0)
	p.update(2_000_000_000, 10, 10)
	p.Done(true, 2_000_000_000, 10)
	if buf.Len() != 0 {
		t.Errorf("a short simulation printed %q", buf.String())
	}
	for _, tc := range []struct {
		ok   bool
		want string
	}{
		{true, "graphcc: sim: 10 of 10 flows finished by 2.000 ms simulated, 3s\n"},
		{false, ""},
	} {
		buf.Reset()
		p := NewSim(&buf, 10, 0)
		p.start = p.start.Add(-3 * time.Second)
		p.update(1_000_000_000, 9, 10)
		p.Done(tc.ok, 2_000_000_000, 10)
		if got := buf.String(); got != tc.want {
			t.Errorf("long simulation (ok %v) printed %q, want %q", tc.ok, got, tc.want)
		}
	}
	if NewSim(&buf, 0, 0).Callback() != nil {
		t.Error("a run of no flows has a progress callback")
	}

	buf.Reset()
	m := NewMeter(&buf, "eval", "runs", 3)
	m.Step(1, "")
	m.Step(1, "") // no new run finished
	m.Step(3, "last one")
	m.Done()
	want := "graphcc: eval: 1 of 3 runs done, 0s\ngraphcc: eval: 3 of 3 runs done, 0s: last one\n"
	if buf.String() != want {
		t.Errorf("meter printed %q, want %q", buf.String(), want)
	}
	if NewMeter(&buf, "eval", "runs", 0) != nil {
		t.Error("a meter of nothing")
	}
}
