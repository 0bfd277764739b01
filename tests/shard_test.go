package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// machineKeys are the keys of eval's JSON report that measure the machine
// rather than the simulation: the only bytes a merged report may differ
// in from the single run's.
var machineKeys = regexp.MustCompile(`"(wall_seconds|peak_rss_bytes)": [-+.0-9eE]+`)

// TestCLIShardMerge runs a small eval (two scenarios of a scenario file,
// three policies among them ideal, three seeds, two rewards, a yardstick)
// in one process and as 3 shards in separate processes, the shard's
// index given as I/N, by Slurm's variable and by Kubernetes' variable,
// then merges the parts, listed out of order: the merge prints the same
// report and writes the same report.md, figures and manifest byte for
// byte, and the same JSON but for the machine's figures (machineKeys).
// The scenario file is gone when the parts merge: they carry their
// scenarios. A missing shard is refused naming what is missing.
func TestCLIShardMerge(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mini.yaml"), []byte(miniScenarios), 0o644); err != nil {
		t.Fatal(err)
	}
	eval := []string{"eval", "--scenario-file", "mini.yaml", "--policies", "static,static:2,32,0.01,ideal", "--seeds", "1-3",
		"--reference", "static:2,32,0.01", "--yardsticks", "static", "--rewards", "linear:25,convex:25"}
	whole := mustRun(t, bin, dir, append(eval, "--out", "whole", "--json", "whole.json")...)
	for i, env := range []string{"", "SLURM_ARRAY_TASK_ID=1", "JOB_COMPLETION_INDEX=2"} {
		shard := "0/3"
		if env != "" {
			shard = "env/3"
		}
		runEnv(t, bin, dir, env, append(eval, "--shard", shard, "--json", "part-"+strconv.Itoa(i)+".json")...)
	}
	if err := os.Remove(filepath.Join(dir, "mini.yaml")); err != nil {
		t.Fatal(err)
	}
	merged := mustRun(t, bin, dir, "merge", "part-2.json", "part-0.json", "part-1.json", "--out", "merged", "--json", "merged.json")
	if merged != whole {
		t.Errorf("merge printed\n%s\nwant eval's\n%s", merged, whole)
	}
	for _, name := range []string{"report.md", "mini.png", "mini-ws.png", ".graphcc-eval"} {
		a := readFile(t, filepath.Join(dir, "whole", name))
		if b := readFile(t, filepath.Join(dir, "merged", name)); !bytes.Equal(a, b) {
			t.Errorf("merged/%s differs from eval's", name)
		}
	}
	a := machineKeys.ReplaceAll(readFile(t, filepath.Join(dir, "whole.json")), []byte(`"$1": 0`))
	b := machineKeys.ReplaceAll(readFile(t, filepath.Join(dir, "merged.json")), []byte(`"$1": 0`))
	if !bytes.Equal(a, b) {
		t.Errorf("merged.json differs from eval's but for %s", machineKeys)
	}
	if !bytes.Contains(a, []byte(`"wall_seconds": 0`)) {
		t.Errorf("the JSON report has no wall_seconds to mask: is %s still right?", machineKeys)
	}
	_, errOut, code := graphcc(t, bin, dir, "merge", "part-0.json", "part-2.json", "--out", "bad")
	if want := "shard 1 of 3 missing"; code == 0 || !strings.Contains(errOut, want) {
		t.Errorf("merge without shard 1: exit %d, %q; want an error containing %q", code, errOut, want)
	}
}

// runEnv runs graphcc as mustRun does with env ("NAME=VALUE", or "" for
// none) added to its environment, without the engines' index variables
// of the test's own.
func runEnv(t *testing.T, bin, dir, env string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SLURM_ARRAY_TASK_ID=") && !strings.HasPrefix(kv, "JOB_COMPLETION_INDEX=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if env != "" {
		cmd.Env = append(cmd.Env, env)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s graphcc %s: %v\n%s", env, strings.Join(args, " "), err, out)
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCLITuneShardMerge runs a small search in one process and its grid
// as 3 shards, then merges them, which runs the rest of the search: the
// merge writes the very result file tune writes. (experiment's
// TestMergeTuneEqualsTune covers several scenarios, intervals and roles.)
func TestCLITuneShardMerge(t *testing.T) {
	bin := graphccBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mini.yaml"), []byte(miniScenarios), 0o644); err != nil {
		t.Fatal(err)
	}
	tune := []string{"tune", "--scenario-file", "mini.yaml", "--scenario", "mini", "--grid", "paper", "--refine", "1",
		"--seeds", "2001-2002", "--confirm-seeds", "3001", "--workers", "2"}
	mustRun(t, bin, dir, append(tune, "--json", "whole.json")...)
	for i := range 3 {
		mustRun(t, bin, dir, append(tune, "--shard", strconv.Itoa(i)+"/3", "--json", "part-"+strconv.Itoa(i)+".json")...)
	}
	out := mustRun(t, bin, dir, "merge", "part-1.json", "part-2.json", "part-0.json", "--json", "merged.json", "--workers", "2")
	if !strings.Contains(out, "confirmation (seeds 3001)") {
		t.Errorf("merge printed no tune summary:\n%s", out)
	}
	if a, b := readFile(t, filepath.Join(dir, "whole.json")), readFile(t, filepath.Join(dir, "merged.json")); !bytes.Equal(a, b) {
		t.Errorf("the merged search's result differs from tune's")
	}
}
