package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
)

// TestTrainThenEvaluate trains GraphCC and ACC briefly on the tiny scenario,
// then evaluates the model files, ACC trained on the spot, and the embedded
// model beside static.
func TestTrainThenEvaluate(t *testing.T) {
	withTinyScenario(t)
	dir := t.TempDir()
	g, a := filepath.Join(dir, "g.model"), filepath.Join(dir, "a.model")
	curve := filepath.Join(dir, "curve.csv")
	small := []string{"--scenario", "tiny", "--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2"}
	out := run(t, append([]string{"train", "--out", g, "--curve", curve}, small...)...)
	if !strings.Contains(out, "trained graphcc on tiny: 4 episodes") {
		t.Errorf("train output %q", out)
	}
	run(t, append([]string{"train", "--out", a, "--kind", "acc"}, small...)...)
	csv, err := os.ReadFile(curve)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 3 || lines[0] != "episode,epsilon,mean_reward,loss,updates,slowdown" {
		t.Errorf("curve:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(dir, "curve.png")); err != nil {
		t.Error(err)
	}
	rep := run(t, "eval", "--scenarios", "tiny", "--seeds", "1001", "--out", filepath.Join(dir, "eval"), "--acc-episodes", "2",
		"--policies", "static,graphcc,graphcc:"+g+",acc:"+a+",acc")
	for _, p := range []string{"static", "graphcc", "graphcc:" + g, "acc:" + a, "acc"} {
		if !strings.Contains(rep, "| "+p+" | ") {
			t.Errorf("report has no row for %s:\n%s", p, rep)
		}
	}
	// a model of the wrong kind is refused, naming the file
	_, _, err = execute(t, t.Context(), "sim", "--ecn", "graphcc:"+a, "--duration", "1ms")
	if err == nil || !strings.Contains(err.Error(), a) {
		t.Errorf("graphcc with an ACC model file: %v", err)
	}
}

func TestTrainBadFlags(t *testing.T) {
	withTinyScenario(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "tiny"}, "--out: required"},
		{[]string{"--scenario", "nope", "--out", filepath.Join(dir, "m")}, "--scenario"},
		{[]string{"--scenario", "tiny", "--out", filepath.Join(dir, "m"), "--reward", "cubic"}, "--reward"},
		{[]string{"--scenario", "tiny", "--out", filepath.Join(dir, "m"), "--kind", "dqn"}, "kind"},
		{[]string{"--scenario", "tiny", "--out", filepath.Join(dir, "nodir", "m")}, "--out"},
		{[]string{"--scenario", "tiny", "--out", filepath.Join(dir, "m"), "--kmin-kb", "10"}, "--kmin-kb"},
		{[]string{"--scenario", "tiny", "--out", filepath.Join(dir, "m"), "--window", "-5"}, "--window"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"train"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("train %v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed runs left files: %v", entries)
	}
}

// TestTrainHardwareFlags trains on the tiny scenario with the simulator's
// defaults and with ACKs served first (--ack-high-prio): the hardware flags
// reach the training simulations, so the weights differ.
func TestTrainHardwareFlags(t *testing.T) {
	withTinyScenario(t)
	dir := t.TempDir()
	small := []string{"train", "--scenario", "tiny", "--episodes", "2", "--warmup", "20", "--updates", "3", "--workers", "2"}
	var weights [][]float64
	for i, extra := range [][]string{nil, {"--ack-high-prio"}} {
		path := filepath.Join(dir, fmt.Sprintf("m%d", i))
		run(t, append(append(slices.Clone(small), "--out", path), extra...)...)
		f, err := gnn.Load(path, gnn.GraphCCExpect())
		if err != nil {
			t.Fatal(err)
		}
		m, err := f.Model()
		if err != nil {
			t.Fatal(err)
		}
		weights = append(weights, m.Params)
	}
	if slices.Equal(weights[0], weights[1]) {
		t.Error("--ack-high-prio trained the same weights as the default")
	}
}

// TestACCTrainsOnEvalParams checks that ACC trained on the spot, as eval's
// acc policy trains it, trains in the evaluation's simulator: its hardware
// and control interval, else the defaults.
func TestACCTrainsOnEvalParams(t *testing.T) {
	withTinyScenario(t)
	sc, err := scenarioLookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	ackFirst := replay.DefaultParams()
	ackFirst.AckHighPriority = true
	for _, tc := range []struct {
		env          policyEnv
		wantAckFirst bool
		wantInterval int64
	}{
		{policyEnv{}, false, replay.DefaultInterval},
		{policyEnv{params: ackFirst, interval: 200 * topo.Microsecond}, true, 200 * topo.Microsecond},
	} {
		c := accTrainConfig(tc.env, sc, 3)
		if c.Params.AckHighPriority != tc.wantAckFirst || c.Interval != tc.wantInterval || c.Kind != "acc" || c.Episodes != 3 {
			t.Errorf("env %+v: ack first %v, interval %d, kind %s, episodes %d", tc.env, c.Params.AckHighPriority, c.Interval, c.Kind, c.Episodes)
		}
	}
}
