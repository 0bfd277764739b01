package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
