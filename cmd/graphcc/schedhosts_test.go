package main

import (
	"path/filepath"
	"strings"
	"testing"

	"graphcc/gnn"
)

// TestSchedHostsCommands runs a schedule of the switches' settings and
// the hosts' DCQCN constants everywhere a policy runs: sim; eval, as a
// policy and through tuned:DIR as a yardstick (a hand-made tune result
// whose best_policy is the schedule); and train --hosts --objective
// imitate, with the same directory as teacher and host action table. The
// testbed's policy list: controller/testbed's TestParsePolicies.
func TestSchedHostsCommands(t *testing.T) {
	const sched = "sched:0=2,32,0.01/55,55,2,5,25:500us=2,32,0.01/30,55,2,40,400"
	const oneStep, fixed = "sched:0=2,32,0.01/55,55,2,5,25", "static:2,32,0.01+dcqcn:55,55,2,5,25"
	dir, _ := writeTuned(t, map[string]string{"tiny": sched}, "static")
	tuned := "tuned:" + dir

	if out := run(t, "sim", "--scenario", "tiny", "--policy", sched); !strings.Contains(out, "completed") {
		t.Errorf("sim output %q", out)
	}

	js := filepath.Join(t.TempDir(), "r.json")
	run(t, "eval", "--scenarios", "tiny", "--policies", sched+","+oneStep+","+fixed, "--yardsticks", tuned,
		"--seeds", "1-3", "--rewards", "", "--reference", fixed, "--out", filepath.Join(t.TempDir(), "out"), "--json", js)
	m, data := readEvalJSON(t, js)
	mean := map[string]float64{}
	for _, p := range m.Scenarios[0].Policies {
		mean[p.Policy] = p.Summary["slowdown"].(map[string]any)["mean"].(float64)
	}
	if len(mean) != 5 || mean[oneStep] != mean[fixed] || mean[sched] == mean[fixed] || mean[tuned] != mean[sched] {
		t.Errorf("mean slowdowns %v: want the one-step schedule's as %s's, the schedule's otherwise, and %s's the schedule's\n%s", mean, fixed, tuned, data)
	}

	model := filepath.Join(t.TempDir(), "joint.model")
	out := run(t, "train", "--scenario", "tiny", "--hosts", "--host-actions", tuned, "--objective", "imitate", "--teacher", tuned,
		"--episodes", "2", "--warmup", "10", "--updates", "5", "--workers", "1", "--model-out", model)
	if want := "host actions " + tuned + ": 3 profiles: 300,1,4,5,50; 55,55,2,5,25; 30,55,2,40,400\n"; !strings.Contains(out, want) {
		t.Errorf("train output %q lacks %q", out, want)
	}
	f, err := gnn.Load(model, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.HostActions != 3 || f.Meta["teacher"] != tuned {
		t.Errorf("model file: host_actions %d, meta %v", f.HostActions, f.Meta)
	}
}
