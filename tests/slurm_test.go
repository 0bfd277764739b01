package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"graphcc/internal/slurmtest"
)

// sweepFlags are the eval flags of the small sweep the Slurm tests submit:
// four units (one scenario, two policies, two seeds), a few seconds each.
var sweepFlags = []string{"--scenarios", "fb60-incast", "--seeds", "1001-1002", "--policies", "static,static:2,32,0.01"}

// standIn is a stand-in for graphcc in the jobs: eval writes to its --json
// file the array task it ran in and its arguments, and merge writes to its
// --json file the parts it was given, one after another, and creates its
// --out directory. It proves the job files drive graphcc as documented
// without depending on what graphcc computes.
const standIn = `#!/bin/sh
set -eu
cmd=$1
json= out= prev=
for a in "$@"; do
	case $prev in --json) json=$a ;; --out) out=$a ;; esac
	prev=$a
done
case $cmd in
eval) printf 'task=%s\nargs=%s\n' "$SLURM_ARRAY_TASK_ID" "$*" > "$json" ;;
merge)
	shift
	: > "$json.tmp"
	for a in "$@"; do case $a in --*) break ;; esac; cat "$a" >> "$json.tmp"; done
	mv "$json.tmp" "$json"
	mkdir -p "$out"
	echo merged ;;
*) echo "stand-in graphcc: unknown command $cmd" >&2; exit 2 ;;
esac
`

// TestSlurmSweep starts a one-node Slurm cluster (package slurmtest) and
// submits sweeps to it with the shipped deploy/slurm/submit.sh: first with
// a stand-in for graphcc that records how each job ran it, then, if the
// built graphcc has eval --shard, the real sweep, whose merged report and
// JSON must equal the single-process eval's. It logs the wall times of
// both (GRAPHCC_SLURM_SWEEP, below, times a bigger sweep).
func TestSlurmSweep(t *testing.T) {
	flags, shards, limit := sweepSettings(t)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	bin := graphccBinary(t)
	c := slurmtest.Start(ctx, t)

	t.Run("stand-in", func(t *testing.T) {
		dir := t.TempDir()
		fake := filepath.Join(dir, "graphcc")
		if err := os.WriteFile(fake, []byte(standIn), 0o755); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "sweep")
		submitSweep(ctx, t, c, fake, out, 3, sweepFlags)
		var want strings.Builder
		for i := range 3 {
			fmt.Fprintf(&want, "task=%d\nargs=eval --workers 1 %s --shard env/3 --json %s\n",
				i, strings.Join(sweepFlags, " "), filepath.Join(out, "parts", fmt.Sprintf("part-%d.json", i)))
		}
		got, err := os.ReadFile(filepath.Join(out, "all.json"))
		if err != nil || string(got) != want.String() {
			t.Errorf("the stand-in's merged file: %v\n%s\nwant\n%s", err, got, want.String())
		}
		if fi, err := os.Stat(filepath.Join(out, "report")); err != nil || !fi.IsDir() {
			t.Errorf("the merge job made no %s: %v", filepath.Join(out, "report"), err)
		}
	})

	t.Run("eval", func(t *testing.T) {
		requireShardFlags(t, bin)
		dir := t.TempDir()
		single := filepath.Join(dir, "single")
		start := time.Now()
		args := append(append([]string{"eval"}, flags...), "--json", single+".json", "--out", single)
		if _, stderr, code := graphcc(t, bin, dir, args...); code != 0 {
			t.Fatalf("graphcc eval (single process) exited %d: %s", code, stderr)
		}
		t.Logf("the sweep took %v in one process", time.Since(start).Round(time.Millisecond))
		for _, n := range shards {
			out := filepath.Join(dir, fmt.Sprintf("sweep-%d", n))
			submitSweep(ctx, t, c, bin, out, n, flags)
			sameJSON(t, single+".json", filepath.Join(out, "all.json"))
			sameFiles(t, single, filepath.Join(out, "report"))
		}
	})
}

// sweepSettings returns the real sweep's eval flags, its shard counts and
// the test's time limit: sweepFlags in 2 shards within 4 minutes, unless
// GRAPHCC_SLURM_SWEEP gives other eval flags (split on spaces; then the
// limit is an hour) and GRAPHCC_SLURM_SHARDS other counts (such as "2 4"),
// to time a bigger sweep as docs/scale-out.md did.
func sweepSettings(t *testing.T) ([]string, []int, time.Duration) {
	flags, limit := sweepFlags, 4*time.Minute
	if v := os.Getenv("GRAPHCC_SLURM_SWEEP"); v != "" {
		flags, limit = strings.Fields(v), time.Hour
	}
	shards := []int{2}
	if v := os.Getenv("GRAPHCC_SLURM_SHARDS"); v != "" {
		shards = nil
		for _, f := range strings.Fields(v) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 {
				t.Fatalf("GRAPHCC_SLURM_SHARDS=%q: want shard counts of at least 1", v)
			}
			shards = append(shards, n)
		}
	}
	return flags, shards, limit
}

// requireShardFlags skips t unless bin has eval --shard and merge: the
// sharding of issue 25, which another change brings.
func requireShardFlags(t *testing.T, bin string) {
	t.Helper()
	help, err := exec.Command(bin, "eval", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("graphcc eval --help: %v\n%s", err, help)
	}
	if !bytes.Contains(help, []byte("--shard")) {
		t.Skip("graphcc eval has no --shard flag yet (issue 25's sharding): the real sweep cannot run on Slurm")
	}
	if help, err := exec.Command(bin, "merge", "--help").CombinedOutput(); err != nil {
		t.Skipf("graphcc has no merge command yet (issue 25's sharding): graphcc merge --help: %v\n%s", err, help)
	}
}

// submitSweep submits the sweep of the eval flags with deploy/slurm/submit.sh,
// in shards shards of one CPU each, running graphcc, into out, and waits
// for the array and the merge job; it fails t, with the jobs' logs, unless
// all of them completed.
func submitSweep(ctx context.Context, t *testing.T, c *slurmtest.Cluster, graphcc, out string, shards int, flags []string) {
	t.Helper()
	script, err := filepath.Abs("../deploy/slurm/submit.sh")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	cmd := c.Command(ctx, script, flags...)
	cmd.Env = append(cmd.Env, "GRAPHCC="+graphcc, fmt.Sprintf("SHARDS=%d", shards), "CPUS=1",
		"TIME=00:05:00", "MERGE_TIME=00:05:00", "OUT="+out)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("submit.sh: %v\n%s", err, stderrOf(err))
	}
	ids := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(stdout)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		ids[k] = v
	}
	if ids["array"] == "" || ids["merge"] == "" {
		t.Fatalf("submit.sh printed %q, want array=ID and merge=ID lines", stdout)
	}
	merge, err := c.Wait(ctx, ids["merge"])
	if err != nil {
		t.Fatal(err)
	}
	array, err := c.Wait(ctx, ids["array"])
	if err != nil {
		t.Fatal(err)
	}
	if len(array) != shards {
		t.Errorf("job array %s has %d tasks, want %d: %v", ids["array"], len(array), shards, array)
	}
	for _, j := range append(array, merge...) {
		if j.State != "COMPLETED" {
			log, _ := os.ReadFile(j.StdOut)
			t.Errorf("%v; its output (%s):\n%s", j, j.StdOut, log)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d shards and the merge ran on the local Slurm (%d CPUs) in %v from submission to the merge's end",
		shards, c.CPUs, time.Since(start).Round(time.Millisecond))
}

// stderrOf returns what a failed command printed on stderr.
func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}

// runSpecific are the keys of eval's JSON whose values differ from run to
// run of the same flags: the time and memory a run took.
var runSpecific = map[string]bool{"wall_seconds": true, "peak_rss_bytes": true}

// sameJSON fails t unless the JSON files want and got hold the same values
// but for runSpecific keys, naming the first place they differ.
func sameJSON(t *testing.T, want, got string) {
	t.Helper()
	var w, g any
	for _, f := range []struct {
		path string
		v    *any
	}{{want, &w}, {got, &g}} {
		data, err := os.ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, f.v); err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
	}
	if where := jsonDiff(w, g, "$"); where != "" {
		t.Errorf("%s and %s differ at %s", want, got, where)
	}
}

// jsonDiff returns the path of the first difference between two decoded
// JSON values, ignoring runSpecific keys, or "" if there is none.
func jsonDiff(a, b any, path string) string {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			return path
		}
		keys := map[string]bool{}
		for k := range a {
			keys[k] = true
		}
		for k := range b {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			if runSpecific[k] {
				continue
			}
			if d := jsonDiff(a[k], b[k], path+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return path
		}
		for i := range a {
			if d := jsonDiff(a[i], b[i], fmt.Sprintf("%s[%d]", path, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s (%v against %v)", path, a, b)
	}
	return ""
}

// sameFiles fails t unless directories want and got hold the same files
// with the same bytes: the report and the figures.
func sameFiles(t *testing.T, want, got string) {
	t.Helper()
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	w, g := names(want), names(got)
	if !reflect.DeepEqual(w, g) {
		t.Fatalf("%s holds %v, %s holds %v", want, w, got, g)
	}
	for _, name := range w {
		a, errA := os.ReadFile(filepath.Join(want, name))
		b, errB := os.ReadFile(filepath.Join(got, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s differs between %s and %s (%v, %v)", name, want, got, errA, errB)
		}
	}
}
