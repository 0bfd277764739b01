package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/gnn"
)

// hostsOf parses the hosts' constants s, failing t.
func hostsOf(t *testing.T, s string) control.HostParams {
	t.Helper()
	h, err := ParseHostParams(s)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// writeResults writes files (name → content) into a new directory.
func writeResults(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// result is a tune result file's content with best_policy best.
func result(best string) string {
	return `{"scenario": "x", "best_policy": "` + best + `", "score": 1}`
}

func TestTunedHostProfiles(t *testing.T) {
	preset := "300,1,4,5,50"
	good := map[string]string{
		"websearch60.json":  result("static:32,256,0.75+dcqcn:100,55,16,5,25"),
		"fb60.json":         result("static:1,32,0.25+dcqcn:55,55,4,2.5,25"),
		"googlerpc60.json":  result("static:0,4,1+dcqcn:15,8,2,40,200"),
		"alistorage60.json": result("static:1,22.6,0.25+dcqcn:55,55,2,2.5,50"),
		"fb80.json":         result("static:2,32,0.01+dcqcn:55,55,4,2.5,25"), // fb60's again
		"fail1.json":        result("static:2,32,0.01"),                      // no hosts' constants
		"fb90.json":         result("static:2,32,0.01+dcqcn:300,1,4,5,50"),   // HPCC's preset again
		"fb60.err":          "not a result, not *.json",
	}
	dir := writeResults(t, good)
	for _, tc := range []struct {
		name      string
		path      string
		scenarios []string
		want      []string // the profiles, in order
		err       string
	}{
		// Sorted names: alistorage60, fail1, fb60, fb80, fb90, googlerpc60, websearch60.
		{"directory", dir, nil, []string{preset, "55,55,2,2.5,50", "55,55,4,2.5,25", "15,8,2,40,200", "100,55,16,5,25"}, ""},
		{"the scenarios trained on", dir, []string{"websearch60", "fb60", "fail1", "fb60"}, []string{preset, "55,55,4,2.5,25", "100,55,16,5,25"}, ""},
		{"a scenario without a result", dir, []string{"fb60", "day"}, nil, "scenario day"},
		{"one file", filepath.Join(dir, "googlerpc60.json"), nil, []string{preset, "15,8,2,40,200"}, ""},
		{"missing", filepath.Join(dir, "nope"), nil, nil, "tune results " + filepath.Join(dir, "nope")},
		{"empty directory", t.TempDir(), nil, nil, "no *.json file in the directory"},
		{"no hosts' constants", filepath.Join(dir, "fail1.json"), nil, nil, "no best_policy sets the hosts' DCQCN constants"},
		{"only the preset", filepath.Join(dir, "fb90.json"), nil, nil, "no best_policy sets the hosts' DCQCN constants"},
		{"not a result", writeResults(t, map[string]string{"a.json": result("static+dcqcn:55,55,4,2.5,25"), "b.json": "[1, 2]"}), nil, nil, "b.json: not a tune result"},
		{"no best_policy", writeResults(t, map[string]string{"a.json": `{"scenario": "a"}`}), nil, nil, "a.json: no best_policy"},
		{"bad constants", writeResults(t, map[string]string{"a.json": result("static+dcqcn:0,55,4,2.5,25")}), nil, nil, "a.json: best_policy"},
		// A schedule's steps, in step order; a step without them adds nothing.
		{"a schedule", writeResults(t, map[string]string{
			"day.json":  result("sched:0=0.5,32,0.125:10ms=2,32,0.01/55,55,2,5,25:25ms=2,64,0.354/30,55,2,40,400:30ms=0.5,32,0.125/55,55,2,5,25"),
			"fb60.json": result("static:1,32,0.25+dcqcn:15,8,2,40,200"),
		}), nil, []string{preset, "55,55,2,5,25", "30,55,2,40,400", "15,8,2,40,200"}, ""},
		{"a schedule without hosts' constants", writeResults(t, map[string]string{"day.json": result("sched:0=0.5,32,0.125:10ms=2,32,0.01")}), nil, nil,
			"no best_policy sets the hosts' DCQCN constants"},
		// On other hardware its constants come first, and HPCC's preset
		// is a profile like any other.
		{"other hardware", dir, []string{"fb90", "fb60", "websearch60"}, []string{"55,55,4,2.5,25", preset, "100,55,16,5,25"}, ""},
		{"other hardware, only its constants", filepath.Join(dir, "fb60.json"), nil, nil, "no best_policy sets the hosts' DCQCN constants"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hardware := control.DefaultHostParams()
			if strings.HasPrefix(tc.name, "other hardware") {
				hardware = hostsOf(t, "55,55,4,2.5,25")
			}
			got, err := TunedHostProfiles(tc.path, tc.scenarios, hardware)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []control.HostParams
			for _, s := range tc.want {
				want = append(want, hostsOf(t, s))
			}
			if !slices.Equal(got, want) {
				t.Errorf("profiles %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseHostActions(t *testing.T) {
	dir := writeResults(t, map[string]string{"fb60.json": result("static:1,32,0.25+dcqcn:55,55,4,2.5,25")})
	for _, tc := range []struct {
		spec string
		grid bool
		n    int
		err  string
	}{
		{"grid", true, gnn.NumHostActions, ""},
		{"tuned:" + dir, false, 2, ""},
		{"tuned:" + filepath.Join(dir, "fb60.json"), false, 2, ""},
		{"tuned:", false, 0, "want grid|tuned:DIR|tuned:FILE"},
		{"profiles", false, 0, `"profiles": want grid|tuned:DIR|tuned:FILE`},
		{"tuned:" + filepath.Join(dir, "none"), false, 0, "no such file"},
	} {
		tab, err := ParseHostActions(tc.spec, nil, control.DefaultHostParams())
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.spec, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.spec, err)
			continue
		}
		if tab.IsGrid() != tc.grid || tab.Len() != tc.n {
			t.Errorf("%s: grid %v, %d actions, want %v, %d", tc.spec, tab.IsGrid(), tab.Len(), tc.grid, tc.n)
		}
		if !tab.IsGrid() && tab.Action(0) != control.DefaultHostParams() {
			t.Errorf("%s: action 0 %+v, want HPCC's preset", tc.spec, tab.Action(0))
		}
	}
}
