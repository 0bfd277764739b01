package experiment_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"graphcc/experiment"
	"graphcc/experiment/report"
)

// reportFiles writes what graphcc eval writes of r: the Markdown report,
// the JSON report with the machine's figures cleared (machineFree) and
// the figures, by name.
func reportFiles(t *testing.T, r *experiment.Report) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	var md, js bytes.Buffer
	if err := report.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	out["report.md"] = md.Bytes()
	dir := t.TempDir()
	names, err := report.WriteFigures(dir, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(n)))
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(n)] = b
	}
	if err := report.WriteJSON(&js, experiment.MachineFree(r)); err != nil {
		t.Fatal(err)
	}
	out["report.json"] = js.Bytes()
	return out
}

// TestMergeEqualsEvaluate: the parts of 1, 3 and 20 shards (more shards
// than the 18 units: some parts are empty) merge into the very report,
// JSON (but for the machine's figures) and figures that experiment.Evaluate writes.
func TestMergeEqualsEvaluate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the evaluation 4 times")
	}
	c := experiment.ShardEval(t)
	whole, err := experiment.Evaluate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := reportFiles(t, whole)
	if len(want) != 4 {
		t.Fatalf("files %v, want the report, the JSON and 2 figures", len(want))
	}
	if ph := whole.Scenarios[1].Policies[0]; len(ph.Summary.Phases) != 3 || len(ph.PhaseVsRef) != 3 || !ph.PhaseVsRef[0].HasInterval() ||
		!bytes.Contains(want["report.md"], []byte("### tiny-busy-phased by phase")) {
		t.Fatalf("the phased scenario's phases: %+v, ratios %+v", ph.Summary.Phases, ph.PhaseVsRef)
	}
	if !bytes.Contains(want["report.md"], []byte(c.YardstickNote)) || !bytes.Contains(want["report.json"], []byte(c.YardstickNote)) {
		t.Fatalf("the report and its JSON lack the yardstick note %q", c.YardstickNote)
	}
	for _, n := range []int{1, 3, 20} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			parts := experiment.EvalParts(t, c, n)
			slices.Reverse(parts) // in another order
			merged, err := experiment.Merge(experiment.OpenAll(t, parts...), "test")
			if err != nil {
				t.Fatal(err)
			}
			got := reportFiles(t, merged)
			for name, w := range want {
				if !bytes.Equal(got[name], w) {
					t.Errorf("%s differs from Evaluate's:\n%s", name, experiment.FirstDiff(got[name], w))
				}
			}
		})
	}
}
