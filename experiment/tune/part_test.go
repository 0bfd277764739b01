package tune

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"graphcc/experiment"
	"graphcc/internal/testfabric"
	"graphcc/policy"
	"graphcc/scenario"
)

// shardTune is a small search with everything its parts carry: two
// scenarios (per-scenario scores), three validation seeds (intervals), a
// grid with a repeated setting, and a round of port roles after it.
func shardTune() Config {
	c := tinyTune(2, []uint64{3001, 3002})
	busy := c.Scenarios[0]
	busy.Name, busy.Gen.Load = "tiny-busy", 0.8
	c.Scenarios = append(c.Scenarios, busy)
	c.Grid = append(c.Grid, c.Grid[1], Setting{4, 64, 0.25})
	c.Seeds, c.Refine, c.Top, c.Roles = []uint64{2001, 2002, 2003}, 0, 1, true
	return c
}

// partFile is a part and the name of its file.
type partFile struct {
	name string
	*experiment.Part
}

// openAll writes the files of parts and opens them.
func openAll(t testing.TB, parts ...partFile) []*experiment.PartReader {
	t.Helper()
	var out []*experiment.PartReader
	for _, f := range parts {
		var b bytes.Buffer
		if err := experiment.WritePart(&b, f.Part); err != nil {
			t.Fatal(err)
		}
		pr, err := experiment.OpenPart(&b, f.name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, pr)
	}
	return out
}

// evalParts runs every shard of n of a tiny evaluation and returns their
// parts, by build "test", named part-I.json.
func evalParts(t testing.TB, n int) []partFile {
	t.Helper()
	c := experiment.Config{
		Scenarios: []scenario.Scenario{testfabric.TinyScenario()},
		Policies:  []policy.Named{{Name: "static", New: policy.Static()}},
		Seeds:     []uint64{1, 2},
	}
	var parts []partFile
	for i := range n {
		p, err := experiment.EvaluatePart(context.Background(), c, experiment.Shard{Index: i, Count: n})
		if err != nil {
			t.Fatal(err)
		}
		p.Build = "test"
		parts = append(parts, partFile{fmt.Sprintf("part-%d.json", i), p})
	}
	return parts
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return fmt.Sprintf("at byte %d: %q vs %q", i, a[max(0, i-40):min(len(a), i+40)], b[max(0, i-40):min(len(b), i+40)])
}

// tuneParts runs every shard of c's grid of n and returns their parts, by
// build "test", named tune-I.json.
func tuneParts(t *testing.T, c Config, n int) []partFile {
	t.Helper()
	var parts []partFile
	for i := range n {
		p, err := GridPart(context.Background(), c, experiment.Shard{Index: i, Count: n})
		if err != nil {
			t.Fatal(err)
		}
		p.Build = "test"
		parts = append(parts, partFile{fmt.Sprintf("tune-%d.json", i), p})
	}
	return parts
}

// TestMergeTuneEqualsTune: the grid's parts of 1, 2 and 7 shards (more
// than the grid's 5 distinct configurations) merged and continued give
// the very result Search gives.
func TestMergeTuneEqualsTune(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the search 4 times")
	}
	c := shardTune()
	whole, err := Search(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := whole.WriteJSON(&want); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 7} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			parts := tuneParts(t, c, n)
			var rounds []string
			res, err := Merge(context.Background(), openAll(t, parts...), "test", MergeOptions{Workers: 2,
				Progress: func(r Round) { rounds = append(rounds, r.Name) }})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := res.WriteJSON(&got); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("merged search differs from Tune's:\n%s", firstDiff(got.Bytes(), want.Bytes()))
			}
			if len(rounds) != c.Rounds() || rounds[0] != "grid" {
				t.Errorf("rounds %v, want the grid and %d more", rounds, c.Rounds()-1)
			}
		})
	}
}

// TestMergeTuneRefusals: tune-grid parts that are not one search's, or
// eval parts among them, are refused naming the file.
func TestMergeTuneRefusals(t *testing.T) {
	c := tinyTune(2, []uint64{3001})
	c.Refine = 0
	parts := tuneParts(t, c, 2)
	other := c
	other.Top = 2
	others := tuneParts(t, other, 2)
	evals := evalParts(t, 2)
	for _, tc := range []struct {
		name  string
		parts []partFile
		want  string
	}{
		{"missing", parts[1:], "shard 0 of 2 missing"},
		{"another search", []partFile{parts[0], {"top2.json", others[1].Part}}, "top2.json: a part of another evaluation than tune-0.json: its tune differ"},
		{"an eval part", []partFile{parts[0], evals[1]}, "part-1.json: a part of kind eval, not tune-grid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Merge(context.Background(), openAll(t, tc.parts...), "test", MergeOptions{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Merge: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if _, err := experiment.Merge(openAll(t, parts...), "test"); err == nil || !strings.Contains(err.Error(), "tune-0.json: a part of kind tune-grid, not eval") {
		t.Errorf("Merge of tune parts: %v", err)
	}
}

// FuzzReadGridPart: any bytes are read as a tune-grid part or refused
// without a panic, and a search and runs read write a part that reads
// back to the same.
func FuzzReadGridPart(f *testing.F) {
	// A part made by hand: the simulator, instrumented for fuzzing, would
	// take long to make one.
	c := Config{Scenarios: []scenario.Scenario{testfabric.TinyScenario()}, Grid: []Setting{{2, 16, 0.01}, {4, 32, 1}, {2, 16, 0.01}},
		Top: 1, Seeds: []uint64{2001, 2002, 2003}, ConfirmSeeds: []uint64{3001}}
	if err := c.setDefaults(); err != nil {
		f.Fatal(err)
	}
	p, err := newGridPart(c, experiment.Shard{Index: 0, Count: 2}, gridConfigs(c.Grid))
	if err != nil {
		f.Fatal(err)
	}
	p.Build = "test"
	if p.Runs, err = json.Marshal([]PartRun{{Config: 0, Policy: "static:2,16,0.01", Score: 1.25, LOO: []float64{1.2, 1.3, 1.25}}}); err != nil {
		f.Fatal(err)
	}
	var good bytes.Buffer
	if err := experiment.WritePart(&good, p); err != nil {
		f.Fatal(err)
	}
	if _, err := readFile(good.Bytes()); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(bytes.Replace(good.Bytes(), []byte(`"runs":[`), []byte(`"runs":[{"config":7},`), 1))
	f.Add([]byte(`{"format":"graphcc-part/1","kind":"tune-grid","tune":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := readFile(b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json: ") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		ps, runs, err := readGridPart(p)
		if err != nil {
			t.Fatal(err)
		}
		if p.Tune, err = json.Marshal(ps); err != nil {
			t.Fatal(err)
		}
		if p.Runs, err = json.Marshal(runs); err != nil {
			t.Fatal(err)
		}
		if p.Fingerprint, err = experiment.Fingerprint(&p.Config, p.Tune); err != nil {
			t.Fatal(err)
		}
		var w bytes.Buffer
		if err := experiment.WritePart(&w, p); err != nil {
			t.Fatal(err)
		}
		p2, err := readFile(w.Bytes())
		if err != nil {
			t.Fatalf("a part read and written does not read back: %v", err)
		}
		ps2, runs2, err := readGridPart(p2)
		if err != nil || !reflect.DeepEqual(ps2, ps) || !reflect.DeepEqual(runs2, runs) {
			t.Fatalf("round trip changed the part: %v", err)
		}
	})
}

// readFile reads the tune-grid part file b, named f.json, and checks its
// search and runs.
func readFile(b []byte) (*experiment.Part, error) {
	pr, err := experiment.OpenPart(bytes.NewReader(b), "f.json")
	if err != nil {
		return nil, err
	}
	if pr.Kind != experiment.PartTuneGrid {
		return nil, fmt.Errorf("f.json: a part of kind %s", pr.Kind)
	}
	if _, _, err := readGridPart(pr.Part); err != nil {
		return nil, fmt.Errorf("f.json: %w", err)
	}
	return pr.Part, nil
}
