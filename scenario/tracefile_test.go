package scenario

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
	"graphcc/trace"
	"graphcc/workload"
)

// testFlows are flows on testTopology's hosts 0 to 3: windows of 1 ms
// from 2 s hold 2, 1 and 1 flows.
const testFlows = "4\n0 1 3 100 1000 2\n1 2 3 100 2000 2.0005\n2 3 3 100 3000 2.0012\n3 0 3 200 4000 2.0021\n"

// writeTraceFiles writes testTopology and testFlows into a directory and
// returns it.
func writeTraceFiles(t testing.TB) string {
	dir := t.TempDir()
	for name, text := range map[string]string{"topo.txt": testTopology, "flows.txt": testFlows} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestReadTraceScenario checks a scenario of a recorded trace: seed k
// plays window k, shifted to the arrival window's start, and a seed past
// the last window is refused with their count.
func TestReadTraceScenario(t *testing.T) {
	dir := writeTraceFiles(t)
	text := "scenarios:\n  - name: mine\n    topology: topo.txt\n    flows: flows.txt\n    window: 1ms\n"
	ss, err := Read(strings.NewReader(text), "s.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	s := ss[0]
	if s.Trace == nil || s.Trace.Count() != 3 || s.Gen.Duration != topo.Millisecond || s.PhaseStarts() != nil {
		t.Fatalf("trace %+v, gen %+v", s.Trace, s.Gen)
	}
	if d := s.Describe(); !strings.HasPrefix(d, "the flows of flows.txt in 3 windows (seed k plays window k), 1 ms of arrivals; topo.txt") {
		t.Errorf("described as %q", d)
	}
	if c := s.SizeCDF(); c == nil || c.Name != "flows.txt" || len(c.Points) != 101 || c.Points[0].Bytes != 1000 || c.Points[100].Bytes != 4000 || c.Points[50].Bytes != 3000 {
		t.Errorf("size CDF %+v", c)
	}
	at := workload.DefaultStart
	for seed, want := range map[uint64][]int64{1: {at, at + topo.Millisecond/2}, 2: {at + topo.Millisecond/5}, 3: {at + topo.Millisecond/10}} {
		_, flows, err := s.Build(seed)
		if err != nil {
			t.Fatal(err)
		}
		var starts []int64
		for _, fl := range flows {
			starts = append(starts, fl.Start)
		}
		if !slices.Equal(starts, want) {
			t.Errorf("seed %d: starts %v, want %v", seed, starts, want)
		}
	}
	if _, _, err := s.Build(4); err == nil || !strings.Contains(err.Error(), "flows.txt: window 4: the trace has 3 windows of 1ms (seed k plays window k: seeds 1 to 3)") {
		t.Errorf("seed 4: %v", err)
	}
	// the same flows as a CSV
	csv := "start,src,dst,size\n2,0,1,1000\n2.0005,1,2,2000\n2.0012,2,3,3000\n2.0021,3,0,4000\n"
	if err := os.WriteFile(filepath.Join(dir, "flows.csv"), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err = Read(strings.NewReader(strings.Replace(text, "flows.txt", "flows.csv", 1)), "s.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := ss[0].Trace.Flows(); len(got) != 4 || got[3].Start != s.Trace.Flows()[3].Start || got[3].Size != 4000 {
		t.Errorf("from the CSV: %+v", got)
	}
	// the Clos of the base names the hosts, by default
	var b bytes.Buffer
	_, flows, err := Default().Build(1)
	if err != nil {
		t.Fatal(err)
	}
	if err := trace.WriteFlows(&b, flows); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gen.txt"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ss, err = Read(strings.NewReader("scenarios:\n  - {name: gen, flows: gen.txt, window: 5ms}\n"), "s.yaml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := ss[0].Trace.Count(); n != 5 { // the default's 25 ms
		t.Errorf("%d windows of 5 ms in 25 ms of arrivals, want 5", n)
	}
}

// TestReadTraceScenarioErrors checks that a trace's faults are refused,
// naming the scenario file's line and the flow file's.
func TestReadTraceScenarioErrors(t *testing.T) {
	dir := writeTraceFiles(t)
	bad := map[string]string{
		"host.txt":  "1\n0 7 3 100 1000 2\n",
		"order.txt": "2\n0 1 3 100 1000 2\n1 0 3 100 1000 1.5\n",
		"zero.txt":  "2\n0 1 3 100 1000 2\n1 0 3 100 0 2.1\n",
		"gap.txt":   "2\n0 1 3 100 1000 2\n1 0 3 100 10 2.0035\n",
	}
	for name, text := range bad {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	head := "scenarios:\n  - name: mine\n    topology: topo.txt\n"
	for _, tc := range []struct{ body, want string }{
		{"    flows: host.txt\n    window: 1ms\n", "s.yaml:4: flows: " + filepath.Join(dir, "host.txt") + ":2: dst: unknown node 7"},
		{"    flows: order.txt\n    window: 1ms\n", "order.txt:3: start 1.500000000 s is before the flow before's, 2.000000000 s"},
		{"    flows: zero.txt\n    window: 1ms\n", "zero.txt:3: zero size"},
		{"    flows: gap.txt\n    window: 1ms\n", "gap.txt:3: window 2 (1ms to 2ms after the first flow) is empty"},
		{"    flows: flows.txt\n", "s.yaml:4: flows: give window too"},
		{"    window: 1ms\n", "s.yaml:4: window: a window of no trace"},
		{"    flows: flows.txt\n    window: 0ms\n", "s.yaml:5: window: 0ms: must be positive"},
		{"    flows: flows.txt\n    window: 1ms\n    load: 0.5\n", "s.yaml:6: load: a scenario's traffic is its flows or generated, not both"},
		{"    flows: none.txt\n    window: 1ms\n", "s.yaml:4: flows: open"},
	} {
		_, err := Read(strings.NewReader(head+tc.body), "s.yaml", dir)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.want)
		}
	}
}
