package policy

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/internal/testfabric"
	"graphcc/models"
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

// TestShippedGraphCC checks the GraphCC policies graphcc ships: the
// embedded model is models.GraphCCFile byte for byte; graphcc and
// graphcc:switch run byte for byte as their floor specs (DefaultGraphCC,
// SwitchGraphCC) and otherwise than their bare models; graphcc:bare runs
// as the model file; the built-in names hold from a directory where a
// file of that name exists, which graphcc:./NAME reads.
func TestShippedGraphCC(t *testing.T) {
	disk, err := os.ReadFile(filepath.Join("..", models.GraphCCFile))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(models.GraphCC(), disk) {
		t.Errorf("the embedded model is not %s byte for byte", models.GraphCCFile)
	}
	file := "graphcc:" + filepath.Join("..", models.GraphCCFile)
	for _, c := range []struct {
		spec, same, other string
	}{
		{"graphcc", DefaultGraphCC, "graphcc:bare"},
		{"graphcc:switch", SwitchGraphCC, "graphcc:bare-switch"},
		{"graphcc:bare", file, "graphcc:bare-switch"},
	} {
		got := runSpec(t, c.spec, false)
		if same := runSpec(t, c.same, false); !bytes.Equal(got.bytes, same.bytes) {
			t.Errorf("%s runs otherwise than %s", c.spec, c.same)
		}
		if other := runSpec(t, c.other, false); bytes.Equal(got.bytes, other.bytes) {
			t.Errorf("%s runs as %s", c.spec, c.other)
		}
	}
	bare := runSpec(t, "graphcc:bare", false)
	t.Chdir(t.TempDir())
	gnnModel, err := gnn.EmbeddedFile()
	if err != nil {
		t.Fatal(err)
	}
	if err := gnnModel.Save(GraphCCBare); err != nil {
		t.Fatal(err)
	}
	if a := runSpec(t, "graphcc:bare", false); !bytes.Equal(a.bytes, bare.bytes) {
		t.Error("graphcc:bare beside a file named bare runs otherwise than the built-in model")
	}
	if a, b := runSpec(t, "graphcc:./bare", false), runSpec(t, "graphcc:bare-switch", false); !bytes.Equal(a.bytes, b.bytes) {
		t.Error("graphcc:./bare runs otherwise than the file ./bare (the switch-only model)")
	}
}

// BenchmarkGraphCCStep is one control step of each built-in GraphCC
// policy on the default Clos (40 switch ports' agents, and the 24 hosts'
// with a host head): Decide, and DecideHosts where the policy sets the
// hosts' constants. The default,
// graphcc, runs the model's two heads and its base, tuned:joint, then the
// gates.
func BenchmarkGraphCCStep(b *testing.B) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	tel := &control.Telemetry{Interval: testfabric.SampleInterval, Ports: make([]control.PortSample, len(fab.Ports))}
	for i := range tel.Ports {
		tel.Ports[i] = testfabric.Sample(r.Float64(), r.Float64()/10, int64(r.IntN(300_000)), fab.Ports[i].Rate)
	}
	for _, spec := range []string{"graphcc", "graphcc:bare", "graphcc:switch", "graphcc:bare-switch"} {
		b.Run(spec, func(b *testing.B) {
			p, start, err := must(Parse(context.Background(), spec, Env{})).New(fab, scenario.Default(), 1)
			if err != nil {
				b.Fatal(err)
			}
			ecn := start
			if ecn == nil {
				ecn = control.StaticSettings(fab)
			}
			hosts := make([]control.HostParams, len(fab.Ports))
			hd, withHosts := control.HostDeciderOf(p)
			b.ReportAllocs()
			for b.Loop() {
				p.Decide(tel, ecn)
				if withHosts {
					hd.DecideHosts(tel, hosts)
				}
			}
		})
	}
}
