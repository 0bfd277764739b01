package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestHeadroomThenEval measures the headroom of the tiny scenario in two
// segments, checks its outputs and that running it again resumes, then
// runs a schedule the descent scored with eval --policies unchanged: it
// scores what the descent recorded.
func TestHeadroomThenEval(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "h")
	argv := []string{"headroom", "--scenario", "tiny", "--segment", "500us", "--seeds", "2001", "--report-seeds", "3001",
		"--refine", "-1", "--top", "1", "--switch-only", "--candidates", "2", "--passes", "1", "--workers", "2",
		"--policies", "static", "--out", out}
	stdout := run(t, argv...)
	for _, want := range []string{"# Headroom of tiny", "| ideal | `ideal` |", "| policy | `static` |", "from 2 candidates", "in-sample"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	var res struct {
		BestConstant string   `json:"best_constant"`
		Candidates   []string `json:"candidates"`
		Segments     []string `json:"segments"`
	}
	readJSON(t, filepath.Join(out, "headroom.json"), &res)
	if len(res.Candidates) != 2 || res.Candidates[0] != res.BestConstant || !slices.Equal(res.Segments, []string{"from 0", "from 500us"}) {
		t.Errorf("result %+v", res)
	}
	md, err := os.ReadFile(filepath.Join(out, "headroom.md"))
	if err != nil || string(md) != stdout {
		t.Errorf("headroom.md differs from what was printed (%v)", err)
	}
	// again: resumed from the journal, the same report
	if again := run(t, argv...); again != stdout {
		t.Errorf("the resumed run's report differs:\n%s\n%s", again, stdout)
	}
	var journal struct {
		Scores map[string]float64 `json:"scores"`
	}
	readJSON(t, filepath.Join(out, "journal.json"), &journal)
	var sched string
	for spec := range journal.Scores { // the first schedule in spec order, so every run tests the same one
		if strings.HasPrefix(spec, "sched:") && (sched == "" || spec < sched) {
			sched = spec
		}
	}
	if sched == "" {
		t.Fatalf("the journal holds no schedule: %v", journal.Scores)
	}
	js := filepath.Join(dir, "r.json")
	run(t, "eval", "--scenarios", "tiny", "--policies", sched, "--seeds", "2001", "--rewards", "", "--out", filepath.Join(dir, "e"), "--json", js)
	means := evalMeans(t, js)
	if got, ok := means[sched]; !ok || got != journal.Scores[sched] {
		t.Errorf("eval scored %s %v (ran: %v); headroom scored it %v", sched, got, ok, journal.Scores[sched])
	}
}

// TestHeadroomRefused checks the errors that name a flag.
func TestHeadroomRefused(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--segment", "0"}, "--segment 0: must be positive"},
		{[]string{"--grid", "fine"}, "--grid fine"},
		{[]string{"--tune", "/nonexistent.json"}, "--tune: open /nonexistent.json"},
		{[]string{"--also", "/nonexistent.json"}, "--also: open /nonexistent.json"},
		{[]string{"--seeds", "2001", "--report-seeds", "2001"}, "both a selection and a report seed"},
		{[]string{"--policies", "bogus"}, "--policies bogus"},
	} {
		_, _, err := execute(t, t.Context(), append([]string{"headroom", "--scenario", "tiny", "--out", filepath.Join(t.TempDir(), "h")}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestHeadroomSharded runs a headroom measurement whole, then as its two
// sharded stages and their merges (the search's grid in 2 shards, one
// given its index by the environment, then the rows in 3), and checks
// that headroom.json and headroom.md are byte-identical, and that the
// merge run again resumes from its journal.
func TestHeadroomSharded(t *testing.T) {
	dir := t.TempDir()
	flags := []string{"--scenario", "tiny", "--segment", "500us", "--seeds", "2001", "--report-seeds", "3001,3002",
		"--refine", "-1", "--top", "1", "--switch-only", "--candidates", "2", "--passes", "1", "--workers", "2",
		"--policies", "static"}
	whole := filepath.Join(dir, "whole")
	run(t, append([]string{"headroom", "--out", whole}, flags...)...)

	var search []string
	for i := range 2 {
		part := filepath.Join(dir, fmt.Sprintf("search-%d.json", i))
		shard := fmt.Sprintf("%d/2", i)
		if i == 1 {
			t.Setenv("SLURM_ARRAY_TASK_ID", "1")
			shard = "env/2"
		}
		run(t, append([]string{"headroom", "--shard", shard, "--json", part}, flags...)...)
		search = append(search, part)
	}
	tuned := filepath.Join(dir, "tune.json")
	run(t, append([]string{"merge", "--json", tuned, "--workers", "2"}, search...)...)
	var rows []string
	for i := range 3 {
		part := filepath.Join(dir, fmt.Sprintf("rows-%d.json", i))
		run(t, append([]string{"headroom", "--tune", tuned, "--shard", fmt.Sprintf("%d/3", i), "--json", part}, flags...)...)
		rows = append(rows, part)
	}
	merged := filepath.Join(dir, "merged")
	stdout := run(t, append([]string{"merge", "--out", merged, "--workers", "2"}, rows...)...)
	for _, name := range []string{"headroom.json", "headroom.md"} {
		a, errA := os.ReadFile(filepath.Join(whole, name))
		b, errB := os.ReadFile(filepath.Join(merged, name))
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			t.Errorf("%s: sharded and whole differ (%v, %v):\n%s\n%s", name, errA, errB, b, a)
		}
		if name == "headroom.md" && stdout != string(b) {
			t.Errorf("merge printed other than its headroom.md:\n%s", stdout)
		}
	}
	if _, err := os.Stat(filepath.Join(merged, "journal.json")); err != nil {
		t.Errorf("the merge wrote no journal: %v", err)
	}
	// again: resumed from its journal, the same report
	if again := run(t, append([]string{"merge", "--out", merged, "--workers", "2"}, rows...)...); again != stdout {
		t.Errorf("the resumed merge's report differs:\n%s\n%s", again, stdout)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"headroom", "--shard", "0/2", "--json", filepath.Join(dir, "x.json"), "--out", dir}, "--out with --shard"},
		{[]string{"headroom", "--json", filepath.Join(dir, "x.json")}, "only with --shard"},
		{append([]string{"merge", "--json", filepath.Join(dir, "x.json")}, rows...), "merge into --out's headroom.json"},
		{append([]string{"merge"}, rows...), "--out: give the directory"},
	} {
		args := tc.args
		if args[0] == "headroom" {
			args = append(args, "--scenario", "tiny")
		}
		_, _, err := execute(t, t.Context(), args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.want)
		}
	}
}
