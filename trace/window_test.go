package trace

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"graphcc/topo"
)

// fiveFlows starts at 2 s, 2.0005, 2.0012, 2.0019, 2.0021 and 2.0031 s:
// in windows of 1 ms from 2 s, 2, 2, 1 and 1 flows.
const fiveFlows = "6\n0 1 3 100 1000 2\n1 2 3 100 2000 2.0005\n2 3 3 100 3000 2.0012\n\n3 0 3 200 4000 2.0019\n1 0 3 100 500 2.0021\n0 2 3 100 5000 2.0031\n"

func TestReadWindows(t *testing.T) {
	ms := topo.Millisecond
	w, err := ReadWindows(strings.NewReader(fiveFlows), "t.txt", nil, ms)
	if err != nil {
		t.Fatal(err)
	}
	if w.Count() != 4 || w.Length() != ms {
		t.Fatalf("%d windows of %d ps, want 4 of 1 ms", w.Count(), w.Length())
	}
	for k, want := range [][]int64{{0, ms / 2}, {ms / 5, 9 * ms / 10}, {ms / 10}, {ms / 10}} {
		flows, err := w.Window(uint64(k + 1))
		if err != nil {
			t.Fatal(err)
		}
		var starts []int64
		for _, fl := range flows {
			starts = append(starts, fl.Start)
		}
		if !slices.Equal(starts, want) {
			t.Errorf("window %d starts %v, want %v", k+1, starts, want)
		}
	}
	for _, k := range []uint64{0, 5} {
		if _, err := w.Window(k); err == nil || !strings.Contains(err.Error(), "has 4 windows of 1ms (seed k plays window k: seeds 1 to 4)") {
			t.Errorf("window %d: %v", k, err)
		}
	}
	checkWrittenBack(t, w)
}

func TestReadWindowsRefused(t *testing.T) {
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	h := f.Hosts()
	sw := slices.IndexFunc(f.Nodes, func(n topo.Node) bool { return n.Switch })
	a, b := strconv.Itoa(int(h[0])), strconv.Itoa(int(h[1]))
	for _, tc := range []struct{ text, want string }{
		{"2\n" + a + " " + b + " 3 100 1000 2\n" + b + " " + a + " 3 100 10 1.9\n", "t.txt:3: start 1.900000000 s is before the flow before's, 2.000000000 s"},
		{"2\n" + a + " " + b + " 3 100 1000 2\n" + b + " " + a + " 3 100 10 2.0025\n", "t.txt:3: window 2 (1ms to 2ms after the first flow) is empty"},
		{"2\n" + a + " " + b + " 3 100 1000 2\n" + b + " " + a + " 3 100 0 2.0005\n", "t.txt:3: zero size"},
		{"1\n" + a + " 99999 3 100 1000 2\n", "t.txt:2: dst: unknown node 99999"},
		{"1\n" + a + " " + strconv.Itoa(sw) + " 3 100 1000 2\n", "t.txt:2: dst: node " + strconv.Itoa(sw)},
		{"0\n", "t.txt: no flow, so no window"},
	} {
		if _, err := ReadWindows(strings.NewReader(tc.text), "t.txt", f, topo.Millisecond); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ReadWindows(strings.NewReader(fiveFlows), "t.txt", nil, 0); err == nil {
		t.Error("windows of 0 taken")
	}
}

// FuzzReadWindows checks that any input is refused or read to windows
// that hold every flow once, in start order, each non-empty and within
// its window, and that the trace written back reads to the same.
func FuzzReadWindows(f *testing.F) {
	f.Add(fiveFlows, int64(topo.Millisecond))
	f.Add("2\n0 1 3 100 1000 2\n1 0 3 100 10 2.0025\n", int64(topo.Millisecond))
	f.Add("1\n0 1 3 100 1 0\n", int64(1))
	f.Fuzz(func(t *testing.T, text string, length int64) {
		w, err := ReadWindows(strings.NewReader(text), "f", nil, length)
		if err != nil {
			return
		}
		n := 0
		for k := 1; k <= w.Count(); k++ {
			flows, err := w.Window(uint64(k))
			if err != nil || len(flows) == 0 {
				t.Fatalf("window %d of %d: %d flows, %v", k, w.Count(), len(flows), err)
			}
			for i, fl := range flows {
				if fl.Start < 0 || fl.Start >= length || i > 0 && fl.Start < flows[i-1].Start {
					t.Fatalf("window %d: flow %d starts at %d ps, windows of %d", k, i, fl.Start, length)
				}
			}
			n += len(flows)
		}
		if n != len(w.flows) {
			t.Fatalf("the windows hold %d flows, the trace %d", n, len(w.flows))
		}
		checkWrittenBack(t, w)
	})
}

// TestReadWindowsCSV checks that a flow CSV reads to the windows of the
// same flows in flow.txt, and its faults are refused with their line.
func TestReadWindowsCSV(t *testing.T) {
	csv := "# the flows of fiveFlows\nstart, src, dst, size\n2,0,1,1000\n2.0005,1,2,2000\n2.0012,2,3,3000\n\n2.0019,3,0,4000\n2.0021,1,0,500\n2.0031,0,2,5000\n"
	w, err := ReadWindowsCSV(strings.NewReader(csv), "t.csv", nil, topo.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	txt, err := ReadWindows(strings.NewReader(strings.ReplaceAll(fiveFlows, " 3 200 ", " 3 100 ")), "t.txt", nil, topo.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.flows, txt.flows) || !slices.Equal(w.first, txt.first) {
		t.Errorf("csv %+v, flow.txt %+v", w, txt)
	}
	for _, tc := range []struct{ text, want string }{
		{"2,0,1,1000\n", "t.csv:1: want the header start,src,dst,size"},
		{"", "t.csv:1: want the header"},
		{"start,src,dst,size\n2,0,1\n", "t.csv:2: want 4 fields"},
		{"start,src,dst,size\n2,0,1,1000\n1,1,0,10\n", "t.csv:3: start 1.000000000 s is before"},
		{"start,src,dst,size\n2,0,1,0\n", "t.csv:2: zero size"},
		{"start,src,dst,size\n", "t.csv: no flow"},
	} {
		if _, err := ReadWindowsCSV(strings.NewReader(tc.text), "t.csv", nil, topo.Millisecond); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}

// FuzzReadWindowsCSV checks that any CSV is refused or read to windows
// that flow.txt reads back the same.
func FuzzReadWindowsCSV(f *testing.F) {
	f.Add("start,src,dst,size\n2,0,1,1000\n2.0005,1,2,2000\n", int64(topo.Millisecond))
	f.Add("# x\nstart , src,dst,size\n0,0,1,1\n", int64(1))
	f.Fuzz(func(t *testing.T, text string, length int64) {
		w, err := ReadWindowsCSV(strings.NewReader(text), "f", nil, length)
		if err != nil {
			return
		}
		checkWrittenBack(t, w)
	})
}

// checkWrittenBack checks that w's trace, written as a flow.txt, reads back
// to the same windows.
func checkWrittenBack(t *testing.T, w *Windows) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteFlows(&b, w.Flows()); err != nil {
		t.Fatal(err)
	}
	again, err := ReadWindows(&b, "again", nil, w.Length())
	if err != nil || !slices.Equal(again.flows, w.flows) || !slices.Equal(again.first, w.first) {
		t.Fatalf("written back: %v", err)
	}
}
