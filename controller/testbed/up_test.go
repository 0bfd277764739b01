package testbed

import (
	"os"
	"strings"
	"testing"
	"time"

	"graphcc/controller"
	"graphcc/scenario"
)

func TestCheckRealtime(t *testing.T) {
	for _, tc := range []struct {
		prio       int
		noSwitches bool
		want       string // "" for no error
	}{
		{0, false, ""},
		{0, true, ""},
		{99, true, "--no-switches"},
		{100, false, "outside 1 to 99"},
		{-5, false, "--realtime -5"},
	} {
		err := CheckRealtime(tc.prio, tc.noSwitches)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("CheckRealtime(%d, %v) = %v, want %q", tc.prio, tc.noSwitches, err, tc.want)
		}
	}
	if os.Geteuid() != 0 {
		if err := CheckRealtime(10, false); err == nil || !strings.Contains(err.Error(), "needs root") {
			t.Errorf("CheckRealtime(10) not as root = %v, want one saying it needs root", err)
		}
	}
}

func TestUpConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    UpConfig
		want string // "" for no error
	}{
		{"default scale", UpConfig{Scale: 10000}, ""},
		{"scale 1", UpConfig{Scale: 1, NoSwitches: true}, ""},
		{"scale 0", UpConfig{}, "--scale 0: must be at least 1"},
		{"negative scale", UpConfig{Scale: -3, Realtime: 5}, "--scale -3"},
		{"realtime without switches", UpConfig{Scale: 1, Realtime: 10, NoSwitches: true}, "--realtime 10: with --no-switches"},
	} {
		err := tc.c.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestAgentsConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    AgentsConfig
		want string // "" for no error
	}{
		{"central", AgentsConfig{Mode: controller.AgentsCentral, MissLimit: 3}, ""},
		{"per-switch", AgentsConfig{Mode: controller.AgentsPerSwitch, RoundTimeout: time.Millisecond}, ""},
		{"unknown", AgentsConfig{Mode: "some"}, `--agents "some": want central or per-switch`},
		{"none", AgentsConfig{}, `--agents ""`},
		{"miss limit", AgentsConfig{Mode: controller.AgentsPerSwitch, MissLimit: -1}, "--agent-misses -1"},
		{"round timeout", AgentsConfig{Mode: controller.AgentsPerSwitch, RoundTimeout: -1}, "--agent-round-timeout"},
	} {
		err := tc.a.Check()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestPipelineLoad(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		p    Pipeline
		want string // "" for no error
	}{
		{"built in", Pipeline{}, ""},
		{"json alone", Pipeline{JSON: dir + "/x.json"}, "go together"},
		{"p4info alone", Pipeline{P4Info: dir + "/x.txtpb"}, "go together"},
		{"missing p4info", Pipeline{JSON: dir + "/x.json", P4Info: dir + "/x.txtpb"}, "--p4info: "},
	} {
		info, cfg, err := tc.p.Load()
		switch {
		case tc.want == "" && (err != nil || info == nil || len(cfg) == 0):
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestUpConfigSetFabric sets a lab's fabric from settings and says what
// came up, errors naming the settings.
func TestUpConfigSetFabric(t *testing.T) {
	s := scenario.DefaultSettings()
	s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.BufferMB = 2, 2, 2
	c := UpConfig{Scale: 40000, Realtime: 10}
	if err := c.SetFabric(s, "--"); err != nil {
		t.Fatal(err)
	}
	if c.Fabric == nil || len(c.Fabric.Hosts()) != 4 || c.Buffer != 2<<20 || c.TopologyFile != "" || c.Scenario.Clos.Leaves != 2 {
		t.Errorf("SetFabric: %+v", c)
	}
	var b strings.Builder
	if err := c.WriteUp(&b, "small", "/run/graphcc/small", 1500*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	want := "lab small up in 1.5 s: Clos of 2 leaves x 2 hosts, 2 spines: 4 hosts, 4 switches, 8 links; rates and times scaled by 40000; switch threads at SCHED_FIFO 10; state in /run/graphcc/small\n"
	if b.String() != want {
		t.Errorf("WriteUp:\n%q\nwant\n%q", b.String(), want)
	}
	s.Clos.Spines = 0
	if err := c.SetFabric(s, "--"); err == nil || !strings.HasPrefix(err.Error(), "--spines 0: must be at least 1") {
		t.Errorf("no spines: %v", err)
	}
	s.Clos.Spines, s.Clos.BufferMB = 1, 0
	if err := c.SetFabric(s, "--"); err == nil || !strings.HasPrefix(err.Error(), "--buffer-mb 0: must be positive") {
		t.Errorf("no buffer: %v", err)
	}
}
