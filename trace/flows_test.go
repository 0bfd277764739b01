package trace

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"graphcc/topo"
)

// clos24 is the GraphCC fabric: 24 hosts (ids 0..23), 4 leaves, 2 spines.
func clos24(t testing.TB) *topo.Fabric {
	t.Helper()
	f, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// hpccStar is the fabric of HPCC's simulation/mix/topology.txt (copied
// verbatim to testdata/hpcc_topology.txt): switch 0 with hosts 1..65 on
// 100 Gbps, 1 µs links. Like its flow.txt, that file declares fewer entries
// (65 links) than it holds (262 link lines); HPCC reads the declared ones
// only, and so does this helper, by passing the first 2+65 lines on.
func hpccStar(t testing.TB) *topo.Fabric {
	t.Helper()
	data, err := os.ReadFile("testdata/hpcc_topology.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	f, err := topo.ReadTopology(strings.NewReader(strings.Join(lines[:2+65], "")), "testdata/hpcc_topology.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Nodes) != 66 || !f.Nodes[0].Switch || len(f.Hosts()) != 65 {
		t.Fatalf("hpcc topology: %d nodes, %d hosts", len(f.Nodes), len(f.Hosts()))
	}
	return f
}

func TestFlowsParseSeconds(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"2", 2 * topo.Second},
		{"2.000000000", 2 * topo.Second},
		{"2.5", 2*topo.Second + topo.Second/2},
		{"0.000000000001", 1},
		{"2.000000001", 2*topo.Second + topo.Nanosecond},
		{"2.000000000000000", 2 * topo.Second},
		{"1e-12", 1},
		{"2.5E3", 2500 * topo.Second},
		{".5", topo.Second / 2},
		{"5.", 5 * topo.Second},
		{"+1", topo.Second},
		{"-0", 0},
		{"0000000000000000000000003", 3 * topo.Second},
		{"9223372.036854775807", math.MaxInt64},
		{"0.1", topo.Second / 10}, // exactly, unlike float64 0.1
	} {
		got, err := parseSeconds(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseSeconds(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"1e-13", "finer than 1 ps"},
		{"0.0000000000001", "finer than 1 ps"},
		{"-1", "negative start"},
		{"-0.5", "negative start"},
		{"abc", "not a decimal"},
		{"", "not a decimal"},
		{".", "not a decimal"},
		{"1.2.3", "not a decimal"},
		{"1e", "bad exponent"},
		{"1e99999", "bad exponent"},
		{"9223372.036854775808", "out of range"},
		{"1e300", "out of range"},
		{"0x10", "not a decimal"},
	} {
		if _, err := parseSeconds(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseSeconds(%q) error = %v, want %q", tc.in, err, tc.want)
		}
	}
	for _, ps := range []int64{0, 1, 999, topo.Second - 1, 2 * topo.Second, 2*topo.Second + 123456789012, math.MaxInt64} {
		s := formatSeconds(ps)
		if got, err := parseSeconds(s); err != nil || got != ps {
			t.Errorf("formatSeconds(%d) = %q reads back as %d, %v", ps, s, got, err)
		}
	}
}

func TestReadHPCCFlowFile(t *testing.T) {
	in, err := os.Open("testdata/hpcc_flow.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	flows, err := ReadFlows(in, "testdata/hpcc_flow.txt", hpccStar(t))
	if err != nil {
		t.Fatal(err)
	}
	// The header declares 2 flows; HPCC reads those and ignores the 256
	// further lines and the notes after them.
	want := []Flow{
		{Src: 2, Dst: 1, PG: 3, DPort: 100, Size: 200000000, Start: 2 * topo.Second},
		{Src: 3, Dst: 1, PG: 3, DPort: 100, Size: 200000000, Start: 2 * topo.Second},
	}
	if !slices.Equal(flows, want) {
		t.Errorf("got %+v, want %+v", flows, want)
	}
	// With its header saying 256, every flow line reads, and node 66 is
	// unknown to the 66-node fabric.
	data, _ := os.ReadFile("testdata/hpcc_flow.txt")
	all := "256" + string(data[1:])
	_, err = ReadFlows(strings.NewReader(all), "all", hpccStar(t))
	if err == nil || !strings.Contains(err.Error(), "all:66: src: unknown node 66") {
		t.Errorf("error = %v, want all:66: unknown node 66", err)
	}
	flows, err = ReadFlows(strings.NewReader(all), "all", nil)
	if err != nil || len(flows) != 256 || flows[255] != (Flow{Src: 257, Dst: 1, PG: 3, DPort: 100, Size: 10000000, Start: 2 * topo.Second}) {
		t.Errorf("without a fabric: %d flows, last %+v, %v", len(flows), flows[len(flows)-1], err)
	}
}

func TestReadFlowsErrors(t *testing.T) {
	f := clos24(t) // hosts 0..23, switches 24..29
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "f.txt:1: missing flow count"},
		{"header fields", "2 1\n", "f.txt:1: want 1 field"},
		{"bad header", "two\n", `f.txt:1: bad flow count "two"`},
		{"negative header", "-1\n", `f.txt:1: bad flow count "-1"`},
		{"count mismatch", "3\n0 1 3 100 10 2\n\n1 0 3 100 10 2\n", "f.txt:4: count mismatch: header declares 3 flows, file has 2"},
		{"fields", "1\n0 1 3 100 10\n", "f.txt:2: want 6 fields"},
		{"fields 7", "1\n0 1 3 100 10 2 x\n", "f.txt:2: want 6 fields"},
		{"bad src", "1\nx 1 3 100 10 2\n", `f.txt:2: bad src "x"`},
		{"bad dst", "1\n0 1.5 3 100 10 2\n", `f.txt:2: bad dst "1.5"`},
		{"bad pg", "1\n0 1 p 100 10 2\n", `f.txt:2: bad pg "p"`},
		{"pg range", "1\n0 1 8 100 10 2\n", "f.txt:2: pg 8 out of [0,7]"},
		{"bad dport", "1\n0 1 3 1e2 10 2\n", `f.txt:2: bad dport "1e2"`},
		{"dport range", "1\n0 1 3 65536 10 2\n", "f.txt:2: dport 65536 out of"},
		{"bad size", "1\n0 1 3 100 10k 2\n", `f.txt:2: bad size "10k"`},
		{"size overflow", "1\n0 1 3 100 9223372036854775808 2\n", `f.txt:2: bad size "9223372036854775808": value out of range`},
		{"negative size", "2\n0 1 3 100 10 2\n0 1 3 100 -10 2\n", "f.txt:3: negative size -10"},
		{"zero size", "1\n0 1 3 100 0 2\n", "f.txt:2: zero size"},
		{"bad start", "1\n0 1 3 100 10 2s\n", `f.txt:2: bad start: "2s"`},
		{"negative start", "1\n0 1 3 100 10 -2.5\n", "f.txt:2: bad start: negative start"},
		{"start finer than ps", "1\n0 1 3 100 10 2.0000000000001\n", "f.txt:2: bad start: \"2.0000000000001\": finer than 1 ps"},
		{"unknown src", "1\n30 1 3 100 10 2\n", "f.txt:2: src: unknown node 30"},
		{"unknown dst", "1\n0 -1 3 100 10 2\n", "f.txt:2: dst: unknown node -1"},
		{"src switch", "1\n24 1 3 100 10 2\n", "f.txt:2: src: node 24 (leaf0) is not a host"},
		{"dst switch", "1\n0 29 3 100 10 2\n", "f.txt:2: dst: node 29 (spine1) is not a host"},
		{"src == dst", "1\n5 5 3 100 10 2\n", "f.txt:2: src == dst (node 5)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadFlows(strings.NewReader(tc.in), "f.txt", f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
	// Zero flows, blank lines, tabs and CRLF are fine.
	flows, err := ReadFlows(strings.NewReader("0\n"), "z", f)
	if err != nil || len(flows) != 0 {
		t.Errorf("empty trace: %v, %v", flows, err)
	}
	flows, err = ReadFlows(strings.NewReader("\r\n1 \r\n\t0\t1 3 100 10 2.000000001\r\n"), "crlf", f)
	if err != nil || len(flows) != 1 || flows[0].Start != 2*topo.Second+topo.Nanosecond {
		t.Errorf("crlf: %v, %v", flows, err)
	}
}

func FuzzReadFlows(f *testing.F) {
	fab := clos24(f)
	data, err := os.ReadFile("testdata/hpcc_flow.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add("2\n0 1 3 100 10 2.000000000001\n23 22 7 200 1 0.5e1\n")
	f.Add("1\n0 1 3 100 9223372036854775807 9223372.036854775807\n")
	f.Fuzz(func(t *testing.T, in string) {
		flows, err := ReadFlows(strings.NewReader(in), "fuzz", fab)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without name: %v", err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteFlows(&buf, flows); err != nil {
			t.Fatalf("write: %v", err)
		}
		again, err := ReadFlows(&buf, "again", fab)
		if err != nil {
			t.Fatalf("re-read: %v\n%s", err, buf.String())
		}
		if !slices.Equal(flows, again) {
			t.Fatalf("round trip: %+v != %+v", again, flows)
		}
	})
}

func TestFirstStart(t *testing.T) {
	for _, c := range []struct {
		starts []int64
		want   int64
	}{
		{nil, 0},
		{[]int64{5}, 5},
		{[]int64{9, 3, 7}, 3},
		{[]int64{2, 2, 8}, 2},
	} {
		var flows []Flow
		for _, s := range c.starts {
			flows = append(flows, Flow{Start: s})
		}
		if got := FirstStart(flows); got != c.want {
			t.Errorf("FirstStart(%v) = %d, want %d", c.starts, got, c.want)
		}
	}
}
