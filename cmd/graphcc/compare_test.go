package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"graphcc/metrics"
	"graphcc/topo"
	"graphcc/trace"
)

// fctRecs are n background flows of mixed sizes and one incast flow, each
// of FCT scale times a 10 us standalone FCT.
func fctRecs(n int, scale float64) []trace.FCT {
	sizes := []int64{1000, 50_000, 500_000, 2_000_000}
	var recs []trace.FCT
	for i := range n {
		recs = append(recs, trace.FCT{
			Src: topo.NodeID(i % 4), Dst: topo.NodeID(4 + i%3), SPort: 10000 + i, DPort: trace.DPortBackground,
			Size: sizes[i%len(sizes)], Start: 2*topo.Second + int64(i)*topo.Microsecond,
			FCT: int64(scale * float64(10*topo.Microsecond)), Standalone: 10 * topo.Microsecond,
		})
	}
	recs = append(recs, trace.FCT{Src: 1, Dst: 4, SPort: 10100, DPort: trace.DPortIncast, Size: 64000,
		Start: 2*topo.Second + topo.Millisecond, FCT: int64(scale * float64(40*topo.Microsecond)), Standalone: 10 * topo.Microsecond})
	return recs
}

// writeFCTFile writes recs to dir/name, in HPCC's hex-IP layout if hex.
func writeFCTFile(t *testing.T, dir, name string, recs []trace.FCT, hex bool) string {
	t.Helper()
	path := filepath.Join(dir, name)
	var b strings.Builder
	if hex {
		ip := func(id topo.NodeID) uint32 { return 0x0b000001 + uint32(id/256)*0x10000 + uint32(id%256)*0x100 }
		for _, r := range recs {
			fmt.Fprintf(&b, "%08x %08x %d %d %d %d %d %d\n", ip(r.Src), ip(r.Dst), r.SPort, r.DPort, r.Size,
				r.Start/topo.Nanosecond, r.FCT/topo.Nanosecond, r.Standalone/topo.Nanosecond)
		}
	} else if err := trace.WriteFCT(&b, recs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCompareCmd(t *testing.T) {
	dir := t.TempDir()
	ref := writeFCTFile(t, dir, "ref.fct", fctRecs(40, 2), true) // HPCC's layout
	close := writeFCTFile(t, dir, "close.fct", fctRecs(40, 2.1), false)
	far := writeFCTFile(t, dir, "far.fct", fctRecs(40, 3), false)

	// Within 10 %: every statistic is +5 %.
	out := run(t, "compare", close, ref)
	for _, want := range []string{
		"flows: ours 41, ref 41; 41 in both",
		"0 of 28 statistics differ by more than 10% (*); max |rel err| 5.0%",
		"incast", "background", "<=10KB", ">1MB", "+5.0%",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("compare close ref: output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "WARNING") {
		t.Errorf("compare close ref warns:\n%s", out)
	}

	// Beyond 10 %: +50 % everywhere; the table is printed, then the error.
	out, _, err := execute(t, context.Background(), "compare", far, ref)
	if err == nil || err.Error() != "28 of 28 statistics differ by more than 10%" {
		t.Errorf("compare far ref: err %v", err)
	}
	if !strings.Contains(out, "+50.0%  *") {
		t.Errorf("compare far ref: no marked row:\n%s", out)
	}
	// --tol: 4 % fails the close run, 6 % passes it, 60 % passes the far one.
	if _, _, err := execute(t, context.Background(), "compare", close, ref, "--tol", "0.06"); err != nil {
		t.Errorf("--tol 0.06: %v", err)
	}
	if _, _, err := execute(t, context.Background(), "compare", close, ref, "--tol", "0.04"); err == nil ||
		err.Error() != "28 of 28 statistics differ by more than 4%" {
		t.Errorf("--tol 0.04: err %v", err)
	}
	run(t, "compare", far, ref, "--tol", "0.6")

	// --json, written also when the comparison fails.
	js := filepath.Join(dir, "cmp.json")
	if _, _, err := execute(t, context.Background(), "compare", far, ref, "--json", js); err == nil {
		t.Error("compare far ref --json: no error")
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep metrics.CompareReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	if rep.Ours != far || rep.Ref != ref || rep.Tol != 0.1 || rep.Matched != 41 || rep.Exceeding != 28 ||
		len(rep.Diffs) != 28 || rep.MaxAbsRel < 0.4999 || rep.Diffs[0].Group != "all" || rep.Diffs[0].Stat != "mean" {
		t.Errorf("json report: %+v", rep)
	}
}

func TestCompareCmdFlowSets(t *testing.T) {
	dir := t.TempDir()
	recs := fctRecs(40, 2)
	ref := writeFCTFile(t, dir, "ref.fct", recs, true)
	// A run that stopped early: the last 5 background flows are missing,
	// same slowdowns otherwise. Not an error.
	short := writeFCTFile(t, dir, "short.fct", append(append([]trace.FCT{}, recs[:35]...), recs[40]), false)
	out, stderr, err := execute(t, context.Background(), "compare", short, ref)
	if err != nil {
		t.Fatalf("compare short ref: %v", err)
	}
	for _, want := range []string{"flows: ours 36, ref 41; 36 in both", "WARNING: 5 flows only in ref", "the flow sets differ"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "different flows") {
		t.Errorf("stderr lacks the warning: %q", stderr)
	}
}

// TestCompareCmdOneSided: a size bin whose flows are all missing from one
// side fails the comparison, however close the rest.
func TestCompareCmdOneSided(t *testing.T) {
	dir := t.TempDir()
	recs := fctRecs(40, 2)
	ref := writeFCTFile(t, dir, "ref.fct", recs, true)
	var kept []trace.FCT
	for _, r := range recs {
		if r.Size < 1_000_000 {
			kept = append(kept, r)
		}
	}
	ours := writeFCTFile(t, dir, "ours.fct", kept, false)
	js := filepath.Join(dir, "c.json")
	out, _, err := execute(t, context.Background(), "compare", ours, ref, "--json", js)
	if err == nil || !strings.Contains(err.Error(), "0 of 24 statistics differ by more than 10%, and 1 group(s) have flows on one side only (>1MB: 0 flows in ours, 10 in ref)") {
		t.Fatalf("compare without the >1MB flows: %v\n%s", err, out)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var rep metrics.CompareReport
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.OneSided) != 1 || rep.OneSided[0] != (metrics.OneSided{Group: ">1MB", OursN: 0, RefN: 10}) {
		t.Errorf("json one_sided %+v (%v)", rep.OneSided, err)
	}
}

func TestCompareCmdErrors(t *testing.T) {
	dir := t.TempDir()
	ref := writeFCTFile(t, dir, "ref.fct", fctRecs(8, 2), true)
	missing := filepath.Join(dir, "missing.fct")
	bad := filepath.Join(dir, "bad.fct")
	os.WriteFile(bad, []byte("1 2 10000 100 1000 5 6 7\n1 2 3\n"), 0o644)
	empty := filepath.Join(dir, "empty.fct")
	os.WriteFile(empty, []byte("\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", missing, ref}, missing},
		{[]string{"compare", ref, missing}, missing},
		{[]string{"compare", bad, ref}, bad + ":2: want 8 fields"},
		{[]string{"compare", ref, empty}, empty + ": no FCT records"},
		{[]string{"compare", ref}, "accepts 2 arg(s)"},
		{[]string{"compare", ref, ref, "--tol", "-0.1"}, "--tol -0.1: must be a non-negative number"},
		{[]string{"compare", ref, ref, "--tol", "NaN"}, "--tol NaN"},
		{[]string{"compare", ref, ref, "--json", filepath.Join(dir, "no", "x.json")}, "--json"},
		{[]string{"compare", ref, ref, "--json", ref}, "--json " + ref + ": it is the input OURS.fct " + ref},
		{[]string{"summarize"}, "requires at least 1 arg"},
		{[]string{"summarize", ref, missing}, missing},
		{[]string{"summarize", bad}, bad + ":2:"},
	} {
		_, _, err := execute(t, context.Background(), tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("graphcc %s: err %v, want one containing %q", strings.Join(tc.args, " "), err, tc.want)
		}
	}
}

func TestSummarizeCmd(t *testing.T) {
	dir := t.TempDir()
	hpcc := writeFCTFile(t, dir, "hpcc.fct", fctRecs(40, 2), true)
	ours := writeFCTFile(t, dir, "ours.fct", fctRecs(40, 3), false)
	out := run(t, "summarize", hpcc, ours)
	for _, want := range []string{"# " + hpcc + "\n", "# " + ours + "\n", "slowdown", "background", "incast",
		"<=10KB", ">1MB", "throughput (mean per flow)"} {
		if !strings.Contains(out, want) {
			t.Errorf("summarize output lacks %q:\n%s", want, out)
		}
	}
	// The HPCC file's table is the library's for the same records.
	recs := fctRecs(40, 2)
	var want strings.Builder
	metrics.Summarize(len(recs), recs, nil).WriteFCTTable(&want)
	first, _, _ := strings.Cut(out, "# "+ours)
	if got := strings.TrimPrefix(first, "# "+hpcc+"\n\n"); strings.TrimRight(got, "\n") != strings.TrimRight(want.String(), "\n") {
		t.Errorf("summarize %s:\n%s\nwant:\n%s", hpcc, got, want.String())
	}
	if strings.Contains(out, "pfc pauses") {
		t.Errorf("summarize prints fabric counters it cannot know:\n%s", out)
	}
}
