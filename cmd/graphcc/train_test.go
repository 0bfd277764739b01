package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/learn"
	"graphcc/replay"
)

// TestTrainThenEvaluate trains GraphCC and ACC briefly on the tiny scenario,
// then evaluates the model files, ACC trained on the spot, and the embedded
// model beside static.
func TestTrainThenEvaluate(t *testing.T) {
	dir := t.TempDir()
	g, a, mix := filepath.Join(dir, "g.model"), filepath.Join(dir, "a.model"), filepath.Join(dir, "mix.model")
	curve := filepath.Join(dir, "curve.csv")
	small := []string{"--scenario", "tiny", "--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2"}
	out := run(t, append([]string{"train", "--model-out", g, "--curve", curve}, small...)...)
	if !strings.Contains(out, "trained graphcc on tiny: 4 episodes") {
		t.Errorf("train output %q", out)
	}
	run(t, append([]string{"train", "--model-out", a, "--kind", "acc"}, small...)...)
	run(t, append([]string{"train", "--model-out", mix, "--features", "flowmix"}, small...)...)
	if f, err := gnn.Load(mix, gnn.GraphCCExpect()); err != nil || f.FeatureSet != "flowmix" || f.Features != gnn.FeaturesFlowMix.Len() {
		t.Errorf("--features flowmix wrote a model of feature set %q, %d features (%v)", f.FeatureSet, f.Features, err)
	}
	csv, err := os.ReadFile(curve)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(string(csv)), "\n"); len(lines) != 3 || lines[0] != "episode,epsilon,mean_reward,loss,updates,slowdown,validation_slowdown" {
		t.Errorf("curve:\n%s", csv)
	}
	if _, err := os.Stat(filepath.Join(dir, "curve.png")); err != nil {
		t.Error(err)
	}
	// ACC trained on the spot must learn too (learn.ErrNoUpdates): tiny's
	// 1 ms traces give about 26 transitions an episode, 50 of them pass
	// the default warmup of 1000.
	rep := run(t, "eval", "--scenarios", "tiny", "--seeds", "1001", "--out", filepath.Join(dir, "eval"), "--acc-episodes", "50",
		"--policies", "static,graphcc,graphcc:"+g+",graphcc:"+mix+",acc:"+a+",acc")
	for _, p := range []string{"static", "graphcc", "graphcc:" + g, "graphcc:" + mix, "acc:" + a, "acc"} {
		if !strings.Contains(rep, "| "+p+" | ") {
			t.Errorf("report has no row for %s:\n%s", p, rep)
		}
	}
	// a model of the wrong kind is refused, naming the file
	_, _, err = execute(t, t.Context(), "sim", "--policy", "graphcc:"+a, "--duration", "1ms")
	if err == nil || !strings.Contains(err.Error(), a) {
		t.Errorf("graphcc with an ACC model file: %v", err)
	}
}

// TestTrainOnRandomFailures trains GraphCC on a scenario that fails
// another link every episode.
func TestTrainOnRandomFailures(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte("scenarios:\n  - name: tinyfail\n    clos: {leaves: 2, spines: 2, hosts_per_leaf: 2}\n"+
		"    duration: 1ms\n    incast: none\n    fail_random: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, "train", "--scenario-file", file, "--model-out", filepath.Join(dir, "g.model"),
		"--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2")
	if !strings.Contains(out, "trained graphcc on tinyfail: 4 episodes") {
		t.Errorf("train output %q", out)
	}
}

func TestTrainBadFlags(t *testing.T) {
	dir := t.TempDir()
	tuned := filepath.Join(t.TempDir(), "fb60.json")
	if err := os.WriteFile(tuned, []byte(`{"scenario":"fb60","best_policy":"static+dcqcn:55,55,4,2.5,25"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scenario", "tiny"}, "--model-out: required"},
		{[]string{"--scenario", "nope", "--model-out", filepath.Join(dir, "m")}, "--scenario"},
		{[]string{"--scenario", "day-held", "--model-out", filepath.Join(dir, "m")}, "--scenario day-held: scenario day-held is held out"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--reward", "cubic"}, "--reward"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--kind", "dqn"}, "kind"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "nodir", "m")}, "--model-out"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--kmin-kb", "10"}, "--kmin-kb"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--window", "-5"}, "--window"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--objective", "fct"}, `--objective: learn: unknown objective "fct" (want port, flows, paths or imitate)`},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--features", "rpc"}, `--features: gnn: unknown feature set "rpc" (want paper or flowmix)`},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--kind", "acc", "--features", "flowmix"}, "--features flowmix: only --kind graphcc takes a feature set"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--kind", "acc", "--hosts"}, "--hosts: only --kind graphcc has a host head"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--host-actions", "tuned:" + filepath.Join(dir, "none")}, "--host-actions: tune results " + filepath.Join(dir, "none")},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--hosts", "--host-actions", "best"}, `--host-actions: "best": want grid|tuned:DIR|tuned:FILE`},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--host-actions", "tuned:" + tuned}, "--host-actions tuned:" + tuned + ": the host action table is the host head's: give --hosts too"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--kind", "acc", "--hosts", "--host-actions", "tuned:" + tuned}, "--hosts: only --kind graphcc has a host head"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--checkpoint", filepath.Join(dir, "c"), "--checkpoint-every", "0"}, "--checkpoint-every 0: must be at least 1"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--checkpoint", filepath.Join(dir, "nodir", "c")}, "--checkpoint " + filepath.Join(dir, "nodir", "c")},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--resume", filepath.Join(dir, "none.ckpt")}, "--resume: load checkpoint: open " + filepath.Join(dir, "none.ckpt")},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--episodes", "0"}, "--episodes 0: must be positive (the trainer would take its default, 200, in its place)"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--lr", "0.0"}, "--lr 0: must be positive"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--warmup", "0"}, "--warmup 0: must be positive"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--eps-start", "0", "--eps-end", "0"}, "--eps-start 0 with --eps-end 0"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--updates", "-3"}, "train: updates per episode -3 must be at least 1"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--reward-queue-kb", "NaN"}, "--reward-queue-kb NaN: must be a finite number"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--lr", "Inf"}, "learning rate +Inf must be positive and finite"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--workers", "-1"}, "--workers -1: must not be negative"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--curve", filepath.Join(dir, "m")}, "two outputs in one file"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m.png"), "--curve", filepath.Join(dir, "m.csv")}, "two outputs in one file"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--curve", filepath.Join(dir, "c.png")}, "the curve's PNG goes beside the CSV"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--checkpoint", filepath.Join(dir, "m")}, "two outputs in one file"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "r.ckpt"), "--resume", filepath.Join(dir, "r.ckpt")}, "it is the input --resume"},
		// runs that would end, or ended, without a learning update
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--episodes", "4"}, "--episodes 4 gives 0 learning updates: the first comes after --warmup 1000 transitions, and an episode gives at most 249; raise --episodes to at least 5, or lower --warmup"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--buffer", "500"}, "--buffer 500 gives 0 learning updates: the first comes after --warmup 1000 transitions, more than the replay buffer holds; raise --buffer to at least 1000"},
		{[]string{"--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--episodes", "5", "--workers", "2"}, "--episodes 5 gave 0 learning updates: the first comes after --warmup 1000 transitions, and they gave "},
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
	dir := t.TempDir()
	small := []string{"train", "--scenario", "tiny", "--episodes", "2", "--warmup", "20", "--updates", "3", "--workers", "2"}
	var weights [][]float64
	for i, extra := range [][]string{nil, {"--ack-high-prio"}} {
		path := filepath.Join(dir, fmt.Sprintf("m%d", i))
		run(t, append(append(slices.Clone(small), "--model-out", path), extra...)...)
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

// TestTrainCheckpointResume checks --checkpoint and --resume: a run resumed
// from a checkpoint, or from an interruption before its first episode, ends
// with the weights of the run that never stopped, and a resume under other
// flags is refused, naming them.
func TestTrainCheckpointResume(t *testing.T) {
	dir := t.TempDir()
	small := []string{"--scenario", "tiny", "--episodes", "6", "--warmup", "20", "--updates", "3", "--workers", "2"}
	weights := func(path string) []float64 {
		f, err := gnn.Load(path, gnn.Expect{Kind: gnn.KindGraphCC})
		if err != nil {
			t.Fatal(err)
		}
		return f.Params
	}
	whole := filepath.Join(dir, "whole.model")
	run(t, append([]string{"train", "--model-out", whole}, small...)...)

	ck := filepath.Join(dir, "run.ckpt")
	run(t, append([]string{"train", "--model-out", filepath.Join(dir, "first.model"), "--checkpoint", ck, "--checkpoint-every", "4"}, small...)...)
	st, err := learn.LoadCheckpoint(ck)
	if err != nil {
		t.Fatal(err)
	}
	if st.Episodes != 4 || st.Meta["scenario"] != "tiny" {
		t.Fatalf("checkpoint after %d episodes of %q, want 4 of tiny", st.Episodes, st.Meta["scenario"])
	}
	resumed := filepath.Join(dir, "resumed.model")
	run(t, append([]string{"train", "--model-out", resumed, "--resume", ck}, small...)...)
	if !slices.Equal(weights(resumed), weights(whole)) {
		t.Error("the resumed run ended with other weights than the whole run")
	}
	if f, _ := gnn.Load(resumed, gnn.Expect{}); !strings.Contains(f.Meta["resumed_from"], ck+" after 4 episodes") {
		t.Errorf("model metadata %v does not say where it resumed from", f.Meta)
	}

	// Interrupted before its first episode, the run leaves a checkpoint
	// and says how to go on.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	ck0 := filepath.Join(dir, "zero.ckpt")
	_, _, err = execute(t, ctx, append([]string{"train", "--model-out", filepath.Join(dir, "never.model"), "--checkpoint", ck0}, small...)...)
	if err == nil || !strings.Contains(err.Error(), "the state after 0 episodes is in "+ck0+": continue with the same flags and --resume "+ck0) {
		t.Fatalf("interrupted train: %v", err)
	}
	run(t, append([]string{"train", "--model-out", resumed, "--resume", ck0}, small...)...)
	if !slices.Equal(weights(resumed), weights(whole)) {
		t.Error("the run resumed from an interruption ended with other weights than the whole run")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gamma", "0.5"}, "gamma is 0.9 in the checkpoint, 0.5 in this run"},
		{[]string{"--episodes", "8"}, "episodes is 6 in the checkpoint, 8 in this run"},
		{[]string{"--scenario", "tiny2"}, `scenario is "tiny" in the checkpoint, "tiny2" in this run`},
		{[]string{"--ack-high-prio"}, "sim_params is"},
	} {
		args := append(append([]string{"train", "--model-out", filepath.Join(dir, "other.model"), "--resume", ck}, small...), tc.args...)
		_, _, err := execute(t, t.Context(), args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "--resume "+ck+": ") {
			t.Errorf("train %v: %v, want an error naming --resume %s and saying %q", tc.args, err, ck, tc.want)
		}
	}
	bad := filepath.Join(dir, "bad.ckpt")
	if err := os.WriteFile(bad, []byte("GRAPHCC-MODEL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = execute(t, t.Context(), append([]string{"train", "--model-out", filepath.Join(dir, "other.model"), "--resume", bad}, small...)...)
	if err == nil || !strings.Contains(err.Error(), "--resume: checkpoint "+bad+": bad checkpoint: not a graphcc checkpoint file") {
		t.Errorf("--resume of a model file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "other.model")); !os.IsNotExist(err) {
		t.Errorf("a refused resume wrote a model: %v", err)
	}
}

// TestTrainValidateSeeds checks --validate-seeds: the curve records each
// validation, the model written is the weights of the lowest one, and eval
// of that model on the validation seed reports that very slowdown.
func TestTrainValidateSeeds(t *testing.T) {
	dir := t.TempDir()
	model, curve := filepath.Join(dir, "v.model"), filepath.Join(dir, "curve.csv")
	out := run(t, "train", "--scenario", "tiny", "--episodes", "6", "--warmup", "20", "--updates", "3", "--workers", "2",
		"--validate-seeds", "2001", "--validate-every", "4", "--model-out", model, "--curve", curve)
	csv, err := os.ReadFile(curve)
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]string{} // episode -> validation
	for _, line := range strings.Split(strings.TrimSpace(string(csv)), "\n")[1:] {
		f := strings.Split(line, ",")
		vals[f[0]] = f[6]
	}
	if vals["2"] != "NaN" || vals["4"] == "NaN" || vals["6"] == "NaN" {
		t.Fatalf("validations in the curve: %v, want ones after episodes 4 and 6 only", vals)
	}
	num := func(v string) float64 {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	best := "4"
	if num(vals["6"]) < num(vals["4"]) {
		best = "6"
	}
	if !strings.Contains(out, "the model is the weights after "+best+" episodes, mean slowdown "+vals[best]) {
		t.Errorf("train output %q does not name the weights after %s episodes (validations %v)", out, best, vals)
	}
	f, err := gnn.Load(model, gnn.Expect{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Meta["validation"], "after "+best+" episodes") {
		t.Errorf("model metadata %v", f.Meta)
	}
	rep := run(t, "eval", "--scenarios", "tiny", "--seeds", "2001", "--policies", "static,graphcc:"+model, "--out", filepath.Join(dir, "eval"))
	want := fmt.Sprintf("%.3f", num(vals[best])) // eval prints 3 decimals
	if !strings.Contains(rep, "| graphcc:"+model+" | "+want) {
		t.Errorf("eval of the chosen model on the validation seed does not give its validation %s:\n%s", vals[best], rep)
	}
	_, _, err = execute(t, t.Context(), "train", "--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--validate-seeds", "2001,1002")
	if err == nil || !strings.Contains(err.Error(), "--validate-seeds: 1002 is one of eval's seeds (1001-1010)") {
		t.Errorf("validation on an evaluation seed: %v", err)
	}
	_, _, err = execute(t, t.Context(), "train", "--scenario", "tiny", "--model-out", filepath.Join(dir, "m"), "--validate-seeds", "2001,1005-1012")
	if err == nil || !strings.Contains(err.Error(), "--validate-seeds: 1005 is one of eval's seeds") {
		t.Errorf("validation on the evaluation seeds of docs/learning.md: %v", err)
	}
}

// TestTrainCurriculum trains on two scenarios of one fabric: the model
// records the curriculum, and the validation is the geometric mean of
// the two scenarios' mean slowdowns.
func TestTrainCurriculum(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "c.model")
	out := run(t, "train", "--scenario", "tiny,tiny2", "--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2",
		"--validate-seeds", "2001", "--validate-every", "4", "--model-out", model)
	if !strings.Contains(out, "trained graphcc on tiny+tiny2") || !strings.Contains(out, "geometric mean over the curriculum's 2 scenarios") {
		t.Errorf("train output %q", out)
	}
	f, err := gnn.Load(model, gnn.Expect{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta["curriculum"] != "tiny,tiny2" || f.Meta["scenario"] != "tiny+tiny2" {
		t.Errorf("model metadata %v", f.Meta)
	}
	// the validation is the geometric mean of eval's two mean slowdowns
	rep := run(t, "eval", "--scenarios", "tiny,tiny2", "--seeds", "2001", "--policies", "static,graphcc:"+model, "--out", filepath.Join(dir, "eval"))
	means := regexp.MustCompile(`\| graphcc:\S+ \| ([0-9.]+) \|`).FindAllStringSubmatch(rep, -1)
	if len(means) < 2 {
		t.Fatalf("eval report without the model's mean slowdowns:\n%s", rep)
	}
	a, _ := strconv.ParseFloat(means[0][1], 64)
	b, _ := strconv.ParseFloat(means[1][1], 64)
	v := regexp.MustCompile(`mean slowdown ([0-9.]+) on validation`).FindStringSubmatch(out)
	if v == nil {
		t.Fatalf("no validation in %q", out)
	}
	got, _ := strconv.ParseFloat(v[1], 64)
	if want := math.Sqrt(a * b); math.Abs(got-want) > 0.002*want {
		t.Errorf("validation %g, want the geometric mean of %g and %g, %g", got, a, b, want)
	}
	for _, tc := range []struct{ scenario, err string }{
		{"tiny,flat8", "scenario flat8 is not on tiny's fabric"},
		{"tiny,tiny", "tiny given twice"},
	} {
		_, _, err := execute(t, t.Context(), "train", "--scenario", tc.scenario, "--model-out", filepath.Join(dir, "x.model"))
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("--scenario %s: %v, want an error containing %q", tc.scenario, err, tc.err)
		}
	}
}

// TestTrainActions trains on the extended action table: the model file
// records it and sim runs the model with it; acc refuses it.
func TestTrainActions(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "ext.model")
	run(t, "train", "--scenario", "tiny", "--actions", "extended", "--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2", "--model-out", model)
	f, err := gnn.Load(model, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.ActionTable != gnn.ExtendedActionTableID {
		t.Errorf("action table %q", f.ActionTable)
	}
	run(t, "sim", "--policy", "graphcc:"+model, "--duration", "1ms")
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--actions", "huge"}, `--actions: unknown action set "huge"`},
		{[]string{"--kind", "acc", "--actions", "extended"}, "--actions extended: only --kind graphcc"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"train", "--model-out", filepath.Join(dir, "x.model")}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("train %v: %v, want an error containing %q", tc.args, err, tc.err)
		}
	}
}

// TestTrainHosts trains a model with a host head on the tiny scenario and
// runs it in sim, where it sets the hosts' DCQCN constants every interval.
func TestTrainHosts(t *testing.T) {
	dir := t.TempDir()
	g := filepath.Join(dir, "hosts.model")
	out := run(t, "train", "--model-out", g, "--hosts", "--scenario", "tiny", "--episodes", "4", "--warmup", "20", "--updates", "3", "--workers", "2")
	if !strings.Contains(out, "trained graphcc on tiny: 4 episodes") {
		t.Errorf("train output %q", out)
	}
	f, err := gnn.Load(g, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.HostActions != gnn.NumHostActions || f.HostTable != gnn.HostTableID || f.Meta["hosts"] != "true" {
		t.Fatalf("model file: host_actions %d, host_table %q, meta %v", f.HostActions, f.HostTable, f.Meta)
	}
	sim := run(t, "sim", "--scenario", "tiny", "--seed", "1001", "--policy", "graphcc:"+g)
	if !strings.Contains(sim, "completed") {
		t.Errorf("sim output %q", sim)
	}
}

// TestTrainImitate trains a curriculum of two scenarios to copy their
// tuned settings (tuned:DIR): the model records its objective and
// teacher, and the greedy model plays the settings it was taught.
func TestTrainImitate(t *testing.T) {
	dir := t.TempDir()
	tuned := filepath.Join(dir, "tuned")
	if err := os.Mkdir(tuned, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, best := range map[string]string{"tiny": "static:0,4,1", "tiny2": "static:0,4,1"} {
		if err := os.WriteFile(filepath.Join(tuned, name+".json"), []byte(`{"scenario": "`+name+`", "best_policy": "`+best+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "imit.model")
	run(t, "train", "--scenario", "tiny,tiny2", "--actions", "extended", "--objective", "imitate", "--teacher", "tuned:"+tuned,
		"--episodes", "4", "--warmup", "20", "--updates", "20", "--workers", "2", "--model-out", model)
	f, err := gnn.Load(model, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.Meta["objective"] != "imitate" || f.Meta["teacher"] != "tuned:"+tuned {
		t.Errorf("model metadata %v", f.Meta)
	}
	sum := filepath.Join(dir, "sum.json")
	run(t, "sim", "--scenario", "tiny", "--policy", "graphcc:"+model, "--summary-out", sum)
	b, err := os.ReadFile(sum)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		ECN []struct {
			KMin      int64   `json:"kmin_bytes_per_25g"`
			KMax      int64   `json:"kmax_bytes_per_25g"`
			PMax      float64 `json:"pmax"`
			PortSteps int64   `json:"port_steps"`
		} `json:"ecn_settings"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	var taught, all int64
	for _, e := range s.ECN {
		all += e.PortSteps
		if e.KMin == 0 && e.KMax == 4000 && e.PMax == 1 {
			taught += e.PortSteps
		}
	}
	if all == 0 || taught < all*8/10 {
		t.Errorf("the taught setting 0,4,1 held %d of %d port-steps: %+v", taught, all, s.ECN)
	}
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"--objective", "imitate"}, "--objective imitate: needs --teacher"},
		{[]string{"--teacher", "static"}, "--teacher: only with --objective imitate (not port)"},
		{[]string{"--objective", "imitate", "--teacher", "tuned:" + dir}, "--teacher tuned:" + dir + ": scenario tiny"},
		{[]string{"--objective", "imitate", "--teacher", "nonsense"}, "--teacher: "},
		{[]string{"--kind", "acc", "--objective", "imitate", "--teacher", "static"}, "objective imitate trains GraphCC's agents only (not acc)"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"train", "--scenario", "tiny", "--model-out", filepath.Join(dir, "x.model")}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("train %v: %v, want an error containing %q", tc.args, err, tc.err)
		}
	}
}

// TestTrainImitateHosts trains a host-head model to copy a teacher of the
// switches' setting and the hosts' DCQCN constants (the best joint
// constant, host action 15): the model file has a host head, sim runs it,
// and its greedy policy gives the hosts the teacher's constants. The sim
// summary does not report the hosts' constants, so the policy is run
// directly on the tiny scenario for that.
func TestTrainImitateHosts(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "joint.model")
	teacher := "static:2,32,0.01+dcqcn:55,55,2,20,25"
	run(t, "train", "--scenario", "tiny", "--hosts", "--objective", "imitate", "--teacher", teacher,
		"--episodes", "4", "--warmup", "20", "--updates", "20", "--workers", "2", "--model-out", model)
	f, err := gnn.Load(model, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.HostActions != gnn.NumHostActions || f.Meta["hosts"] != "true" || f.Meta["teacher"] != teacher {
		t.Fatalf("model file: host_actions %d, meta %v", f.HostActions, f.Meta)
	}
	checkHostsCopied(t, model, f, func(*gnn.Model) control.HostParams { return gnn.HostAction(15) })
}

// TestTrainHostProfiles trains a host head on the profiles of the tune
// result of the scenario trained on (--host-actions tuned:DIR; another
// scenario's result in DIR is left out) to copy a teacher whose hosts run
// it, outside the grid: the model file records the table, sim runs it,
// and the greedy model gives the hosts the teacher's constants.
func TestTrainHostProfiles(t *testing.T) {
	dir := t.TempDir()
	tuned := filepath.Join(dir, "tuned")
	if err := os.Mkdir(tuned, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, best := range map[string]string{"other": "static:1,32,0.25+dcqcn:55,55,4,2.5,25", "tiny": "static:0,4,1+dcqcn:15,8,2,40,200"} {
		if err := os.WriteFile(filepath.Join(tuned, name+".json"), []byte(`{"scenario":"`+name+`","best_policy":"`+best+`"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	model := filepath.Join(dir, "profiles.model")
	teacher := "static:2,32,0.01+dcqcn:15,8,2,40,200"
	out := run(t, "train", "--scenario", "tiny", "--hosts", "--host-actions", "tuned:"+tuned, "--objective", "imitate", "--teacher", teacher,
		"--episodes", "4", "--warmup", "20", "--updates", "20", "--workers", "2", "--model-out", model)
	if want := "host actions tuned:" + tuned + ": 2 profiles: 300,1,4,5,50; 15,8,2,40,200\n"; !strings.Contains(out, want) {
		t.Errorf("train output %q lacks %q", out, want)
	}
	f, err := gnn.Load(model, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	want := [][5]float64{{300, 1, 4, 5, 50}, {15, 8, 2, 40, 200}}
	if f.HostActions != 2 || f.HostTable != gnn.HostProfilesID || !slices.Equal(f.HostProfiles, want) || f.Meta["host_actions"] != "tuned:"+tuned {
		t.Fatalf("model file: host_actions %d, host_table %q, host_profiles %v, meta %v", f.HostActions, f.HostTable, f.HostProfiles, f.Meta)
	}
	checkHostsCopied(t, model, f, func(m *gnn.Model) control.HostParams { return m.HostTable.Action(1) })

	// On other hardware the table starts from its constants.
	out = run(t, "train", "--scenario", "tiny", "--hosts", "--host-actions", "tuned:"+tuned, "--objective", "imitate", "--teacher", teacher,
		"--episodes", "4", "--warmup", "20", "--updates", "1", "--workers", "2", "--dcqcn-rp-timer", "55us", "--model-out", filepath.Join(dir, "fast.model"))
	if want := "host actions tuned:" + tuned + ": 2 profiles: 55,1,4,5,50; 15,8,2,40,200\n"; !strings.Contains(out, want) {
		t.Errorf("train --dcqcn-rp-timer 55us output %q lacks %q", out, want)
	}
}

// checkHostsCopied checks that sim runs the model file model (f, loaded)
// on the tiny scenario, and that its greedy policy gives the hosts' NICs
// the constants want(model) on at least 80 % of the host-steps.
func checkHostsCopied(t *testing.T, model string, f *gnn.File, want func(*gnn.Model) control.HostParams) {
	t.Helper()
	if sim := run(t, "sim", "--scenario", "tiny", "--seed", "1001", "--policy", "graphcc:"+model); !strings.Contains(sim, "completed") {
		t.Errorf("sim output %q", sim)
	}
	m, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := tinyLookup("tiny")
	if err != nil {
		t.Fatal(err)
	}
	fab, flows, err := sc.Build(1001)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gnn.NewGraphCC(m, fab, gnn.FeatureConfig{})
	if err != nil {
		t.Fatal(err)
	}
	p := &hostCount{g: g, want: want(m)}
	defer p.g.Inference().Close()
	if _, err := replay.Run(replay.Config{Fabric: fab, Flows: flows, Policy: p}); err != nil {
		t.Fatal(err)
	}
	t.Logf("the teacher's host constants on %d of %d host-steps", p.right, p.all)
	if p.all == 0 || p.right < p.all*8/10 {
		t.Errorf("the teacher's host constants on %d of %d host-steps, want 80 %%", p.right, p.all)
	}
}

// hostCount runs g and counts the host-steps where it gives a host's NIC
// the constants want.
type hostCount struct {
	g          *gnn.GraphCC
	want       control.HostParams
	hosts      []control.HostParams
	right, all int
}

func (h *hostCount) Decide(t *control.Telemetry, ecn []control.ECN) {
	h.g.Decide(t, ecn)
	if h.hosts == nil {
		h.hosts = make([]control.HostParams, len(ecn))
	}
	h.g.DecideHosts(t, h.hosts)
	for _, p := range h.g.Hosts() {
		h.all++
		if h.hosts[p] == h.want {
			h.right++
		}
	}
}
