package tests

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/experiment/tune"
	"graphcc/gnn"
	"graphcc/policy"
)

// teacherJointHandMade are the labels of models/teacher-joint that are
// not copies of models/tuned-joint: what docs/learning.md ("The host-head
// model kept") and the research log say they are.
var teacherJointHandMade = map[string]string{
	"alistorage60.json": "static:2,64,0.354+dcqcn:30,55,2,40,400",
	"day.json":          "sched:0=1,16,0.0283/55,55,4,2.5,25:10ms=16,64,0.0283/100,55,16,5,25:15ms=2,64,0.354/30,55,2,40,400:25ms=0,0.5,0.707/15,8,2,80,400:30ms=8,16,0.0884/55,55,4,2.5,25",
	"day-b.json":        "sched:0=0,0.5,0.707/15,8,2,80,400:4ms=8,16,0.0884/55,55,4,2.5,25:24ms=16,64,0.0283/100,55,16,5,25:32ms=2,64,0.354/30,55,2,40,400:34ms=1,16,0.0283/55,55,4,2.5,25",
}

// hostsCurriculum is the curriculum models/graphcc-hosts.model was
// trained on (the Makefile's HOSTS_CURRICULUM).
var hostsCurriculum = []string{"fb60-incast", "fb60", "websearch60", "alistorage60", "googlerpc60", "day", "day-b"}

// teacherFile is the part of a tune result (or a hand-made teacher file)
// the teacher reads, and the note a hand-made one carries.
type teacherFile struct {
	Scenario   string `json:"scenario"`
	BestPolicy string `json:"best_policy"`
	Note       string `json:"note"`
	CopiedFrom string `json:"copied_from"`
}

func readTeacherFile(t *testing.T, path string) teacherFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f teacherFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return f
}

// TestCommittedTeacherJoint: models/teacher-joint holds a file for every
// scenario of models/tuned-joint, each its best_policy with where it was
// copied from but for the hand-made ones, which say so in a note; every
// label runs as a policy.
func TestCommittedTeacherJoint(t *testing.T) {
	tuned, err := filepath.Glob(filepath.Join("..", "models", "tuned-joint", "*.json"))
	if err != nil || len(tuned) == 0 {
		t.Fatalf("no models/tuned-joint files (%v)", err)
	}
	for _, src := range tuned {
		name := filepath.Base(src)
		path := filepath.Join("..", "models", "teacher-joint", name)
		want, got := readTeacherFile(t, src), readTeacherFile(t, path)
		if got.Scenario != want.Scenario {
			t.Errorf("%s: scenario %q, want %q", path, got.Scenario, want.Scenario)
		}
		from := "models/tuned-joint/" + name
		if spec, ok := teacherJointHandMade[name]; ok {
			if got.BestPolicy != spec || got.Note == "" || got.CopiedFrom != "" {
				t.Errorf("%s: best_policy %q with note %q, copied from %q, want the hand-made %q with a note", path, got.BestPolicy, got.Note, got.CopiedFrom, spec)
			}
		} else if got.BestPolicy != want.BestPolicy || got.CopiedFrom != from || got.Note != "" {
			t.Errorf("%s: best_policy %q copied from %q (note %q), want %s's %q", path, got.BestPolicy, got.CopiedFrom, got.Note, from, want.BestPolicy)
		}
		if _, err := policy.Parse(context.Background(), "tuned:"+path, policy.Env{}); err != nil {
			t.Errorf("tuned:%s: %v", path, err)
		}
	}
	extra, _ := filepath.Glob(filepath.Join("..", "models", "teacher-joint", "*.json"))
	if len(extra) != len(tuned) {
		t.Errorf("models/teacher-joint has %d files, models/tuned-joint %d", len(extra), len(tuned))
	}
}

// TestCommittedHostsModel: models/graphcc-hosts.model has a host head
// whose profiles are its teacher's, in the order train makes them, and
// runs in the simulator.
func TestCommittedHostsModel(t *testing.T) {
	path := filepath.Join("..", "models", "graphcc-hosts.model")
	h, err := gnn.Load(path, gnn.Expect{Kind: gnn.KindGraphCC, AnyFeatureSet: true, AnyActionSet: true})
	if err != nil {
		t.Fatal(err)
	}
	if h.HostTable != gnn.HostProfilesID {
		t.Fatalf("%s: host_table %q, want %q", path, h.HostTable, gnn.HostProfilesID)
	}
	want, err := policy.TunedHostProfiles(filepath.Join("..", "models", "teacher-joint"), hostsCurriculum, control.DefaultHostParams())
	if err != nil {
		t.Fatal(err)
	}
	var got, wantS []string
	for _, p := range h.HostProfiles {
		var s []string
		for _, v := range p {
			s = append(s, strconv.FormatFloat(v, 'f', -1, 64))
		}
		got = append(got, strings.Join(s, ","))
	}
	for _, p := range want {
		wantS = append(wantS, policy.FormatHostParams(p))
	}
	if strings.Join(got, "; ") != strings.Join(wantS, "; ") || h.HostActions != len(want) {
		t.Errorf("%s: %d host actions %v, want the teacher's %v", path, h.HostActions, got, wantS)
	}
	if c := h.Meta["curriculum"]; c != strings.Join(hostsCurriculum, ",") {
		t.Errorf("%s: trained on %q, want %q", path, c, strings.Join(hostsCurriculum, ","))
	}

	bin := graphccBinary(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mini.yaml"), []byte(miniScenarios), 0o644); err != nil {
		t.Fatal(err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	out := mustRun(t, bin, dir, "sim", "--scenario-file", "mini.yaml", "--scenario", "mini", "--policy", "graphcc:"+abs)
	if !strings.Contains(out, "slowdown") {
		t.Errorf("sim with %s printed no summary:\n%s", path, out)
	}
}

// shippedCurriculum is the curriculum of the shipped model,
// gnn/models/graphcc.model (the Makefile's CURRICULUM).
var shippedCurriculum = []string{"fb60-incast", "fb60", "websearch60", "alistorage60", "googlerpc60"}

// TestCommittedShippedTeacher: models/tuned-rpc holds a tune result of
// the rpc action table's grid for each scenario of the shipped model's
// curriculum, each best_policy the run of lowest score and a setting of
// that table, and the embedded model was taught it on that curriculum.
func TestCommittedShippedTeacher(t *testing.T) {
	grid := map[string]bool{}
	for _, s := range tune.ActionGrid(gnn.ActionsRPC) {
		grid[s.Spec()] = true
	}
	dir := filepath.Join("..", "models", "tuned-rpc")
	results, err := tune.LoadPrior(dir, shippedCurriculum)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(shippedCurriculum) {
		t.Fatalf("%s: %d tune results for the %d scenarios %v", dir, len(results), len(shippedCurriculum), shippedCurriculum)
	}
	for _, r := range results {
		if !grid[r.BestPolicy] || len(r.Runs) != gnn.NumActions {
			t.Errorf("%s: best_policy %q (in the rpc table: %v), %d runs", r.Scenario, r.BestPolicy, grid[r.BestPolicy], len(r.Runs))
		}
		for _, run := range r.Runs {
			if !grid[run.Policy] || run.Score < r.Score {
				t.Errorf("%s: run %s (score %v) outside the rpc table or below best_policy's %v", r.Scenario, run.Policy, run.Score, r.Score)
			}
		}
	}
	f, err := gnn.EmbeddedFile()
	if err != nil {
		t.Fatal(err)
	}
	if f.ActionTable != gnn.RPCActionTableID || f.Meta["teacher"] != "tuned:models/tuned-rpc" || f.Meta["curriculum"] != strings.Join(shippedCurriculum, ",") {
		t.Errorf("the shipped model: action table %q, teacher %q, curriculum %q", f.ActionTable, f.Meta["teacher"], f.Meta["curriculum"])
	}
}

// TestCommittedExtendedModel: models/graphcc-extended.model, the model
// shipped before the rpc table's (docs/learning.md, "The shipped model"),
// loads as the extended table's imitation of models/tuned.
func TestCommittedExtendedModel(t *testing.T) {
	path := filepath.Join("..", "models", "graphcc-extended.model")
	f, err := gnn.Load(path, gnn.GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	if f.ActionTable != gnn.ExtendedActionTableID || f.Meta["teacher"] != "tuned:models/tuned" || f.Meta["curriculum"] != strings.Join(shippedCurriculum, ",") {
		t.Errorf("%s: action table %q, teacher %q, curriculum %q", path, f.ActionTable, f.Meta["teacher"], f.Meta["curriculum"])
	}
}
