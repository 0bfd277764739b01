package policy

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"graphcc/control"
	"graphcc/internal/testfabric"
	"graphcc/scenario"
	"graphcc/topo"
)

// TestTunedDir checks tuned:DIR: a run on scenario NAME runs the
// best_policy of DIR/NAME.json, and every way that can fail says which
// file and which scenario.
func TestTunedDir(t *testing.T) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"fb60-incast.json": `{"scenario": "fb60-incast", "best_policy": "static:2,32,0.01", "score": 2.97}`,
		"websearch60.json": `{"scenario": "websearch60", "best_policy": "static:32,256,0.75"}`,
		"fb90.json":        `{"scenario": "fb60-incast", "best_policy": "static:2,32,0.01"}`, // copied under the wrong name
		"fb80.json":        `{"scenario": "fb80"}`,
		"fail1.json":       `{"scenario": "fail1", "best_policy": "graphcc"}`,
		"fail2.json":       `not json`,
		"notes.txt":        `not a tune result, and not read`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	np, err := Parse(context.Background(), "tuned:"+dir, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if np.Name != "tuned:"+dir || np.Check == nil || np.Run != nil {
		t.Fatalf("tuned:DIR parsed as %q, check %v, run %v", np.Name, np.Check != nil, np.Run != nil)
	}
	settings := func(spec string) []control.ECN {
		_, ecn, err := must(Parse(context.Background(), spec, Env{})).New(fab, scenario.Scenario{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		return ecn
	}
	for _, tc := range []struct {
		scenario string
		want     string // the spec whose settings it runs
		err      string // or a part of its error
	}{
		{scenario: "fb60-incast", want: "static:2,32,0.01"},
		{scenario: "websearch60", want: "static:32,256,0.75"},
		{scenario: "googlerpc60", err: "tuned:" + dir + " has no tune result for scenario googlerpc60: want " + filepath.Join(dir, "googlerpc60.json")},
		{scenario: "fb90", err: filepath.Join(dir, "fb90.json") + ` is the tune result of scenario "fb60-incast", not of fb90`},
		{scenario: "fb80", err: "scenario fb80: " + filepath.Join(dir, "fb80.json") + ": no best_policy"},
		{scenario: "fail1", err: `best_policy "graphcc": not a fixed setting`},
		{scenario: "fail2", err: filepath.Join(dir, "fail2.json") + ": not a tune result"},
		{scenario: "notes", err: "no tune result for scenario notes"},
		{scenario: "sim", err: `this run is on none of its own (scenario "sim": sim without --scenario, or a testbed run)`},
		{scenario: "testbed", err: "or give a file, tuned:FILE"},
		{scenario: "", err: `(scenario ""`},
	} {
		sc := scenario.Scenario{Name: tc.scenario}
		_, ecn, err := np.New(fab, sc, 1)
		checkErr := np.Check(sc)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.scenario, err, tc.err)
			}
			if checkErr == nil || checkErr.Error() != err.Error() {
				t.Errorf("%s: Check says %v, the run %v", tc.scenario, checkErr, err)
			}
		case err != nil || checkErr != nil:
			t.Errorf("%s: %v (Check: %v)", tc.scenario, err, checkErr)
		case !slices.Equal(ecn, settings(tc.want)):
			t.Errorf("%s: settings differ from %s's", tc.scenario, tc.want)
		}
	}
	// tuned:FILE stays what it was, whatever the file's scenario.
	_, got, err := must(Parse(context.Background(), "tuned:"+filepath.Join(dir, "fb90.json"), Env{})).New(fab, scenario.Scenario{Name: "sim"}, 1)
	if err != nil || !slices.Equal(got, settings("static:2,32,0.01")) {
		t.Errorf("tuned:FILE on sim: %v", err)
	}
}

// TestTunedDirConcurrent runs the policy of one scenario from many
// goroutines, as an evaluation's workers do (go test -race checks the
// cache), and then removes the file: its policy was read once and stays.
func TestTunedDirConcurrent(t *testing.T) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "fb60.json")
	if err := os.WriteFile(file, []byte(`{"scenario": "fb60", "best_policy": "static:4,64,0.5"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	np := must(Parse(context.Background(), "tuned:"+dir, Env{}))
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() { _, _, errs[i] = np.New(fab, scenario.Scenario{Name: "fb60"}, uint64(i)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if _, _, err := np.New(fab, scenario.Scenario{Name: "fb60"}, 9); err != nil {
		t.Errorf("after the file went: %v", err)
	}
}

// FuzzTunedDir reads fuzzed tune result files through tuned:DIR on
// fuzzed scenario names: nothing panics, only the scenario whose file it
// is ever runs (a name reaching out of DIR, such as ../outside, never
// does, though ../outside.json is a good result), and a policy that loads
// sets valid settings.
func FuzzTunedDir(f *testing.F) {
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "static:2,32,0.01"}`), "fb60")
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "static"}`), "fb60")
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "static:1e300,1e301,2"}`), "fb60")
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "static:2,32,0.01"}`), "../outside")
	f.Add([]byte(`{"scenario": "x", "best_policy": "static:2,32,0.01"}`), "x")
	f.Add([]byte(`[1, 2`), "fb60")
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "sched:0=2,32,0.01/55,55,2,5,25:1ms=0.5,4,1/30,55,2,40,400"}`), "fb60")
	f.Add([]byte(`{"scenario": "fb60", "best_policy": "sched:0=2,32,0.01/55,55,2,5,25+dcqcn:55,55,2,5,25"}`), "fb60")
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, name string) {
		root := t.TempDir()
		dir := filepath.Join(root, "tuned")
		good := []byte(`{"scenario": "` + strings.ReplaceAll(name, `"`, "") + `", "best_policy": "static:2,32,0.01"}`)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "fb60.json"), body, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "outside.json"), good, 0o644); err != nil {
			t.Fatal(err)
		}
		np, err := Parse(context.Background(), "tuned:"+dir, Env{})
		if err != nil {
			t.Fatal(err)
		}
		_, ecn, err := np.New(fab, scenario.Scenario{Name: name}, 1)
		if err != nil {
			return
		}
		if name != "fb60" {
			t.Fatalf("scenario %q ran from a directory holding only fb60.json", name)
		}
		for i, e := range ecn {
			if err := e.Validate(); err != nil {
				t.Fatalf("port %d: %v", i, err)
			}
		}
	})
}

// TestTunedSched: a tune result file whose best_policy is a schedule, with
// the hosts' constants in its steps (a hand-made per-phase teacher or
// yardstick), runs that schedule through tuned:DIR and tuned:FILE, hosts
// included; the same schedule with +dcqcn: beside its steps' constants is
// refused, naming the file.
func TestTunedSched(t *testing.T) {
	fab := testfabric.Clos(t)
	dir := writeResults(t, map[string]string{
		"day.json":   `{"scenario": "day", "best_policy": "` + joint + `"}`,
		"day-b.json": `{"scenario": "day-b", "best_policy": "` + joint + `+dcqcn:55,55,2,5,25"}`,
	})
	sc := scenario.Scenario{Name: "day"}
	for _, spec := range []string{"tuned:" + dir, "tuned:" + filepath.Join(dir, "day.json")} {
		np := must(Parse(context.Background(), spec, Env{}))
		pol, ecn, err := np.New(fab, sc, 1)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		want, wantECN, _ := must(Parse(context.Background(), joint, Env{})).New(fab, sc, 1)
		if !slices.Equal(ecn, wantECN) {
			t.Errorf("%s: starts on other settings than the schedule", spec)
		}
		h, ok := control.HostParamsOf(pol)
		wh, _ := control.HostParamsOf(want)
		if _, decides := control.HostDeciderOf(pol); !ok || h != wh || !decides {
			t.Errorf("%s: hosts start on %+v (%v), want the schedule's %+v, deciding them %v", spec, h, ok, wh, decides)
		}
		if in, err := np.Inputs(sc); err != nil || in != "best_policy "+joint {
			t.Errorf("%s: inputs %q, %v", spec, in, err)
		}
	}
	_, _, err := must(Parse(context.Background(), "tuned:"+dir, Env{})).New(fab, scenario.Scenario{Name: "day-b"}, 1)
	if want := filepath.Join(dir, "day-b.json") + `: best_policy "` + joint + `+dcqcn:55,55,2,5,25": sched sets the hosts' DCQCN itself: drop +dcqcn:…`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a schedule with hosts' constants and +dcqcn: %v, want %q", err, want)
	}
}
