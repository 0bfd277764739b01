package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/experiment/report"
)

// TestEvalShard: a shard's run and the merge of the shards write what the
// eval does (the tests/ integration test compares every byte), with the
// shard's index from the engine's environment too.
func TestEvalShard(t *testing.T) {
	dir := t.TempDir()
	base := []string{"eval", "--scenarios", "tiny", "--policies", "static,static:10,40,0.2", "--seeds", "5,6", "--workers", "2"}
	whole := run(t, args(base, "--out", filepath.Join(dir, "whole"))...)
	run(t, args(base, "--shard", "0/2", "--json", filepath.Join(dir, "p0.json"))...)
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	if out := run(t, args(base, "--shard", "env/2", "--json", filepath.Join(dir, "p1.json"))...); out != "" {
		t.Errorf("a shard printed %q on stdout, want nothing", out)
	}
	merged := run(t, "merge", filepath.Join(dir, "p1.json"), filepath.Join(dir, "p0.json"), "--out", filepath.Join(dir, "merged"))
	if merged != whole {
		t.Errorf("merge printed\n%s\nwant eval's\n%s", merged, whole)
	}
	for _, name := range []string{"report.md", "tiny.png", report.ManifestFile} {
		a, errA := os.ReadFile(filepath.Join(dir, "whole", name))
		b, errB := os.ReadFile(filepath.Join(dir, "merged", name))
		if errA != nil || errB != nil || string(a) != string(b) {
			t.Errorf("%s: merge's differs from eval's (%v, %v)", name, errA, errB)
		}
	}
}

// TestEvalShardErrors: the flags of a shard are refused before it runs,
// naming the flag or the variable at fault.
func TestEvalShardErrors(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "p.json")
	notPart := filepath.Join(dir, "not-a-part.json")
	os.WriteFile(notPart, []byte(`{"reference": "static"}`), 0o644)
	base := []string{"eval", "--scenarios", "tiny", "--policies", "static", "--seeds", "5"}
	for _, tc := range []struct {
		name string
		env  map[string]string // "" unsets
		args []string
		want string
	}{
		{"no index", map[string]string{"SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": ""}, args(base, "--shard", "env/3", "--json", part),
			"--shard env/3: no shard index, and neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set"},
		{"bad index variable", map[string]string{"SLURM_ARRAY_TASK_ID": "", "JOB_COMPLETION_INDEX": "x"}, args(base, "--shard", "env/3", "--json", part),
			`--shard env/3: shard index from JOB_COMPLETION_INDEX="x"`},
		{"index past the shards", nil, args(base, "--shard", "3/3", "--json", part), `--shard 3/3: shard index "3"`},
		{"no json", nil, args(base, "--shard", "0/3"), "--shard 0/3: give --json PART.json"},
		{"out", nil, args(base, "--shard", "0/3", "--json", part, "--out", dir), "--out with --shard"},
		{"json dir missing", nil, args(base, "--shard", "0/3", "--json", filepath.Join(dir, "no", "p.json")), "--json " + filepath.Join(dir, "no", "p.json")},
		{"merge: no part", nil, []string{"merge"}, "requires at least 1 arg"},
		{"merge: missing file", nil, []string{"merge", filepath.Join(dir, "none.json")}, filepath.Join(dir, "none.json")},
		{"merge: not a part", nil, []string{"merge", notPart}, notPart + ": not a graphcc part file"},
		{"merge: json over a part", nil, []string{"merge", notPart, "--json", notPart}, "--json " + notPart + ": it is the input part " + notPart},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
				if v == "" {
					os.Unsetenv(k)
				}
			}
			_, _, err := execute(t, context.Background(), tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("graphcc %s: %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
			}
			if _, err := os.Stat(part); err == nil {
				t.Errorf("a refused shard wrote %s", part)
			}
		})
	}
}

// TestTuneShardErrors: tune's shard flags and the merge of its parts are
// refused before anything runs, naming the flag at fault.
func TestTuneShardErrors(t *testing.T) {
	dir := t.TempDir()
	part := filepath.Join(dir, "t0.json")
	base := []string{"tune", "--scenario", "tiny", "--grid", "paper", "--seeds", "2001", "--confirm-seeds", "3001"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no json", args(base, "--shard", "0/2"), "--shard 0/2: give --json PART.json"},
		{"bad shard", args(base, "--shard", "2/2", "--json", part), `--shard 2/2: shard index "2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := execute(t, context.Background(), tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("graphcc %s: %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
			}
			if _, err := os.Stat(part); err == nil {
				t.Errorf("a refused shard wrote %s", part)
			}
		})
	}
	// A part of a grid of 2 shards, and the merge's flags.
	grid := args(base, "--refine", "0", "--workers", "2")
	run(t, args(grid, "--shard", "0/2", "--json", part)...)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"out", []string{"merge", part, "--out", dir, "--json", filepath.Join(dir, "r.json")}, "--out: the parts of tune --shard (" + part + ") merge into a tune result"},
		{"no json", []string{"merge", part}, "--json: give the file of the tune result"},
		{"missing shard", []string{"merge", part, "--json", filepath.Join(dir, "r.json")}, "shard 1 of 2 missing"},
	} {
		t.Run("merge "+tc.name, func(t *testing.T) {
			_, _, err := execute(t, context.Background(), tc.args...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("graphcc %s: %v, want an error containing %q", strings.Join(tc.args, " "), err, tc.want)
			}
		})
	}
}
