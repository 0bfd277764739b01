package policy

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/replay"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestShippedTunes checks the tune results graphcc ships: each name's
// embedded bytes are the repository's file of that name byte for byte, the
// joint one is the joint configuration issue 36 measures against, both
// were tuned on the simulator's default hardware (else eval's default
// yardstick would be none), and tuned:NAME runs exactly what
// tuned:FILE of the same file runs, from any working directory.
func TestShippedTunes(t *testing.T) {
	tunes, err := ShippedTunes()
	if err != nil {
		t.Fatal(err)
	}
	if len(tunes) != 2 || tunes[0].Name != ShippedJoint || !tunes[0].Joint || tunes[1].Name != ShippedSwitch || tunes[1].Joint {
		t.Fatalf("shipped tunes %+v, want joint then switch", tunes)
	}
	if want := "static:0.5,32,0.125+dcqcn:55,55,2,5,25"; tunes[0].BestPolicy != want {
		t.Errorf("tuned:joint is %s, want %s", tunes[0].BestPolicy, want)
	}
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	sc := scenario.Default()
	for i, s := range shippedFiles() {
		disk, err := os.ReadFile(filepath.Join("..", s.file))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s.data, disk) {
			t.Errorf("tuned:%s: the embedded result is not %s byte for byte", s.name, s.file)
		}
		if tunes[i].Hardware != Hardware(replay.Params{}, 0) {
			t.Errorf("tuned:%s was tuned on hardware other than the default: %v", s.name, HardwareDiff(tunes[i].Hardware, Hardware(replay.Params{}, 0)))
		}
		byName := runTuned(t, "tuned:"+s.name, fab, sc)
		byFile := runTuned(t, "tuned:"+filepath.Join("..", s.file), fab, sc)
		if !slices.Equal(byName.ecn, byFile.ecn) || byName.hosts != byFile.hosts || byName.hasHosts != byFile.hasHosts || byName.inputs != byFile.inputs {
			t.Errorf("tuned:%s runs %+v, tuned:%s %+v", s.name, byName, s.file, byFile)
		}
		if byName.hasHosts != s.joint {
			t.Errorf("tuned:%s sets the hosts' constants: %v, want %v", s.name, byName.hasHosts, s.joint)
		}
	}
	if _, err := Parse(context.Background(), "tuned:jointly", Env{}); err == nil {
		t.Error("tuned:jointly (no such file) parsed")
	}
}

// tunedRun is what a tuned: spec runs on one fabric and scenario.
type tunedRun struct {
	ecn      []control.ECN
	hosts    control.HostParams
	hasHosts bool
	inputs   string
}

// runTuned builds spec's policy on fab for sc.
func runTuned(t *testing.T, spec string, fab *topo.Fabric, sc scenario.Scenario) tunedRun {
	t.Helper()
	np, err := Parse(context.Background(), spec, Env{})
	if err != nil {
		t.Fatal(err)
	}
	p, ecn, err := np.New(fab, sc, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := tunedRun{ecn: ecn}
	r.hosts, r.hasHosts = control.HostParamsOf(p)
	if r.inputs, err = np.Inputs(sc); err != nil {
		t.Fatal(err)
	}
	return r
}
