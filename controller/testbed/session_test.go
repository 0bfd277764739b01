package testbed

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/controller/lab"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestSpecAndScenario: the spec Up records names the Clos and the links
// the fabric lost, or holds the topology file's text, and a Session on it
// gives the scenario back without traffic.
func TestSpecAndScenario(t *testing.T) {
	clos := topo.ClosConfig{Leaves: 2, Spines: 2, HostsPerLeaf: 2, HostRate: 25 * topo.Gbps, FabricRate: 100 * topo.Gbps, LinkDelay: topo.Microsecond, Buffer: 1 << 20}
	sc := scenario.Scenario{Name: "sim", Clos: clos, Fail: []string{"leaf0-spine1"}}
	f, err := sc.Fabric(1)
	if err != nil {
		t.Fatal(err)
	}
	c := UpConfig{Scenario: sc, Fabric: f, Scale: 40000, Buffer: 2 << 20}
	spec, err := c.spec()
	if err != nil {
		t.Fatal(err)
	}
	if spec.Clos == nil || *spec.Clos != clos || spec.Topology != "" || spec.Scale != 40000 || spec.Buffer != 2<<20 || !slices.Equal(spec.Failed, []string{"leaf0-spine1"}) {
		t.Errorf("spec of a Clos with a failed link: %+v", spec)
	}
	got := (&Session{Spec: spec}).Scenario()
	if got.Name != "testbed" || got.Clos != clos || !slices.Equal(got.Fail, spec.Failed) || got.Gen.Duration != 0 {
		t.Errorf("the session's scenario %+v", got)
	}

	file := filepath.Join(t.TempDir(), "topology.txt")
	text := "3 1 2\n2\n2 0 25Gbps 1us 0\n2 1 25Gbps 1us 0\n"
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, err := topo.ReadTopology(strings.NewReader(text), file, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	c = UpConfig{Scenario: scenario.Scenario{Name: "sim", Topology: tf}, Fabric: tf, TopologyFile: file, Scale: 1}
	if spec, err = c.spec(); err != nil {
		t.Fatal(err)
	}
	if spec.Clos != nil || spec.Topology != text || len(spec.Failed) != 0 {
		t.Errorf("spec of a topology file: %+v", spec)
	}
	if got := (&Session{Spec: spec}).Scenario(); got.Clos != (topo.ClosConfig{}) || got.Fail != nil {
		t.Errorf("the scenario of a lab from a topology file has a Clos: %+v", got)
	}
	c.TopologyFile = filepath.Join(t.TempDir(), "missing.txt")
	if _, err := c.spec(); err == nil || !strings.HasPrefix(err.Error(), "--topo: ") {
		t.Errorf("spec of a missing topology file: %v", err)
	}
}

// TestRunAgentErrors: the agent process refuses what it cannot run with
// before it dials a switch, naming the flag.
func TestRunAgentErrors(t *testing.T) {
	ok := AgentConfig{Lab: "nolab", Dir: t.TempDir(), Switch: "leaf0", ClockStart: 1, ClockScale: 10000, Interval: 100 * topo.Microsecond, Out: &bytes.Buffer{}}
	for _, tc := range []struct {
		name string
		edit func(*AgentConfig)
		want string
	}{
		{"interval", func(c *AgentConfig) { c.Interval = 0 }, "--interval-ps 0: must be positive"},
		{"miss limit", func(c *AgentConfig) { c.MissLimit = -2 }, "--miss-limit -2"},
		{"clock", func(c *AgentConfig) { c.ClockScale = 0 }, "--clock-start, --clock-scale: "},
		{"no lab", func(*AgentConfig) {}, "nolab"},
	} {
		c := ok
		tc.edit(&c)
		if err := RunAgent(context.Background(), c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %q", tc.name, err, tc.want)
		}
	}
}

// TestOpenErrors: a run on no lab fails before anything, naming the lab.
func TestOpenErrors(t *testing.T) {
	if _, err := Open("nolab", t.TempDir(), Pipeline{}); err == nil || !strings.Contains(err.Error(), "nolab") {
		t.Errorf("Open of no lab: %v", err)
	}
}

// TestLoadAgentModel: the built-in model, or a file's, named by --model
// when it does not load.
func TestLoadAgentModel(t *testing.T) {
	if m, err := loadAgentModel(""); err != nil || m == nil {
		t.Errorf("the built-in model: %v", err)
	}
	if _, err := loadAgentModel(filepath.Join(t.TempDir(), "missing.model")); err == nil || !strings.HasPrefix(err.Error(), "--model: ") {
		t.Errorf("a missing model file: %v", err)
	}
}

// TestLabDir: the lab directory defaults to lab.DefaultDir.
func TestLabDir(t *testing.T) {
	if got := labDir("x", ""); got != lab.DefaultDir("x") {
		t.Errorf("labDir(x, \"\") = %q", got)
	}
	if got := labDir("x", "/tmp/d"); got != "/tmp/d" {
		t.Errorf("labDir(x, /tmp/d) = %q", got)
	}
}

// TestWriteStatusNoLab: status of a lab that is not up fails, naming the
// command that starts it (in its directory, if given).
func TestWriteStatusNoLab(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ dir, want string }{
		{dir, `no lab "nolab" is up in ` + dir + ` (graphcc testbed up --lab nolab --dir ` + dir + ` starts one)`},
		{"", `no lab "nolab" is up (graphcc testbed up --lab nolab starts one)`},
	} {
		var out bytes.Buffer
		if err := WriteStatus(&out, "nolab", tc.dir); err == nil || err.Error() != tc.want {
			t.Errorf("WriteStatus(nolab, %q): %v, want %q", tc.dir, err, tc.want)
		}
	}
}
