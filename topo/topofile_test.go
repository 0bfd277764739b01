package topo

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"100Gbps", 100 * Gbps, ""},
		{"25Gbps", 25 * Gbps, ""},
		{"400Gbps", 400 * Gbps, ""},
		{"400Mbps", 400 * Mbps, ""},
		{"10Kbps", 10 * Kbps, ""},
		{"10kbps", 10 * Kbps, ""},
		{"1000bps", 1000, ""},
		{"2.5Gbps", 2500 * Mbps, ""},
		{"1Tbps", 1000 * Gbps, ""},
		{"0.000000001Gbps", 1, ""},
		{"007Gbps", 7 * Gbps, ""},
		{".5Kbps", 500, ""},
		{"1.Kbps", 1000, ""},
		{"9223372036854775807bps", 9223372036854775807, ""},
		{"100Gbs", 0, `bad rate "100Gbs": unknown unit "Gbs" (want bps, Kbps, Mbps, Gbps or Tbps)`},
		{"100GBps", 0, `unknown unit "GBps"`},
		{"100", 0, `bad rate "100": missing unit`},
		{"Gbps", 0, `bad rate "Gbps": want a non-negative decimal number followed by a unit`},
		{"-1Gbps", 0, `bad rate "-1Gbps": want a non-negative`},
		{"1.2.3Gbps", 0, `bad rate "1.2.3Gbps": bad number "1.2.3"`},
		{".Gbps", 0, `bad number "."`},
		{"0.5bps", 0, `bad rate "0.5bps": not a whole number of bps`},
		{"1e9bps", 0, `unknown unit "e9bps"`},
		{"9223372036854775808bps", 0, "out of range"},
		{"10000000000Gbps", 0, "out of range"},
		{"", 0, "want a non-negative"},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseRate(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseRate(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestParseDelay(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  string
	}{
		{"0.001ms", Microsecond, ""},
		{"1us", Microsecond, ""},
		{"1µs", Microsecond, ""},
		{"1000ns", Microsecond, ""},
		{"0.000001s", Microsecond, ""},
		{"0.000000000001s", 1, ""},
		{"0ms", 0, ""},
		{"1.5ms", 1500 * Microsecond, ""},
		{"0.0000010000ms", Nanosecond, ""},
		{"7ps", 7, ""},
		{"2s", 2 * Second, ""},
		{"0.0000000000001s", 0, `bad delay "0.0000000000001s": not a whole number of ps`},
		{"0.5ps", 0, "not a whole number of ps"},
		{"1min", 0, `bad delay "1min": unknown unit "min" (want s, ms, us, ns or ps)`},
		{"1", 0, `bad delay "1": missing unit`},
		{"-1us", 0, "want a non-negative decimal number"},
		{"1 us", 0, `unknown unit " us"`},
		{"10000000s", 0, "out of range"},
	}
	for _, tt := range tests {
		got, err := ParseDelay(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseDelay(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDelay(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	rates := []struct {
		bps  int64
		want string
	}{
		{100 * Gbps, "100Gbps"}, {25 * Gbps, "25Gbps"}, {2500 * Mbps, "2.5Gbps"}, {400 * Mbps, "400Mbps"},
		{10 * Kbps, "10Kbps"}, {1000, "1Kbps"}, {999, "999bps"}, {1, "1bps"}, {0, "0bps"},
		{1000 * Gbps, "1000Gbps"}, {Gbps + 1, "1.000000001Gbps"}, {9223372036854775807, "9223372036.854775807Gbps"},
	}
	for _, tt := range rates {
		got := FormatRate(tt.bps)
		if got != tt.want {
			t.Errorf("FormatRate(%d) = %q, want %q", tt.bps, got, tt.want)
		}
		if back, err := ParseRate(got); err != nil || back != tt.bps {
			t.Errorf("ParseRate(FormatRate(%d)) = %d, %v", tt.bps, back, err)
		}
	}
	delays := []struct {
		ps   int64
		want string
	}{
		{Microsecond, "0.001ms"}, {0, "0ms"}, {1, "0.000000001ms"}, {Second, "1000ms"},
		{1500 * Microsecond, "1.5ms"}, {320 * Nanosecond, "0.00032ms"}, {9223372036854775807, "9223372036.854775807ms"},
	}
	for _, tt := range delays {
		got := FormatDelay(tt.ps)
		if got != tt.want {
			t.Errorf("FormatDelay(%d) = %q, want %q", tt.ps, got, tt.want)
		}
		if back, err := ParseDelay(got); err != nil || back != tt.ps {
			t.Errorf("ParseDelay(FormatDelay(%d)) = %d, %v", tt.ps, back, err)
		}
	}
}

func writeString(t testing.TB, f *Fabric) string {
	t.Helper()
	var b bytes.Buffer
	if err := f.WriteTopology(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// sameFabric checks that a and b are the same fabric except for names
// (topology.txt does not carry them), including their routing.
func sameFabric(t testing.TB, a, b *Fabric) {
	t.Helper()
	if len(a.Nodes) != len(b.Nodes) || len(a.Links) != len(b.Links) || a.Buffer != b.Buffer {
		t.Fatalf("sizes differ: %d/%d nodes, %d/%d links, buffer %d/%d",
			len(a.Nodes), len(b.Nodes), len(a.Links), len(b.Links), a.Buffer, b.Buffer)
	}
	for i := range a.Nodes {
		if a.Nodes[i].ID != b.Nodes[i].ID || a.Nodes[i].Switch != b.Nodes[i].Switch {
			t.Fatalf("node %d: %+v vs %+v", i, a.Nodes[i], b.Nodes[i])
		}
	}
	for i := range a.Links {
		x, y := a.Links[i], b.Links[i]
		x.Name, y.Name = "", ""
		if x != y {
			t.Fatalf("link %d: %+v vs %+v", i, a.Links[i], b.Links[i])
		}
	}
	if !reflect.DeepEqual(a.Ports, b.Ports) {
		t.Fatal("ports differ")
	}
	if !reflect.DeepEqual(a.Graph(), b.Graph()) || !reflect.DeepEqual(a.Agents(), b.Agents()) {
		t.Fatal("agent graphs differ")
	}
	if !reflect.DeepEqual(a.Hosts(), b.Hosts()) || !reflect.DeepEqual(a.Switches(), b.Switches()) || a.MaxBDP() != b.MaxBDP() {
		t.Fatal("hosts, switches or MaxBDP differ")
	}
	for n := range a.Nodes {
		if !reflect.DeepEqual(a.Out(NodeID(n)), b.Out(NodeID(n))) {
			t.Fatalf("Out(%d) differs", n)
		}
		for _, d := range a.Hosts() {
			if !reflect.DeepEqual(a.NextHops(NodeID(n), d), b.NextHops(NodeID(n), d)) {
				t.Fatalf("NextHops(%d, %d) differs", n, d)
			}
			if a.BaseRTT(NodeID(n), d) != b.BaseRTT(NodeID(n), d) || a.Bottleneck(NodeID(n), d) != b.Bottleneck(NodeID(n), d) {
				t.Fatalf("BaseRTT or Bottleneck(%d, %d) differs", n, d)
			}
		}
	}
}

func TestTopologyRoundTrip(t *testing.T) {
	odd := mustClos(t, ClosConfig{Leaves: 3, Spines: 3, HostsPerLeaf: 5, HostRate: 2500 * Mbps, FabricRate: 40*Gbps + 7,
		LinkDelay: 1234567, Buffer: 1 << 20})
	failed, err := mustClos(t, DefaultClos()).FailLinks("leaf1-spine0", "leaf3-spine1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    *Fabric
	}{{"default", mustClos(t, DefaultClos())}, {"odd rates", odd}, {"failed links", failed}} {
		t.Run(tt.name, func(t *testing.T) {
			text := writeString(t, tt.f)
			g, err := ReadTopology(strings.NewReader(text), "rt.txt", tt.f.Buffer)
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			sameFabric(t, tt.f, g)
			if again := writeString(t, g); again != text {
				t.Errorf("second write differs:\n%s\nvs\n%s", again, text)
			}
			if g.Nodes[0].Name != "n0" || g.Links[0].Name != "n0-n"+strings.Fields(text)[3+len(tt.f.Switches())+1] {
				t.Errorf("names %q %q", g.Nodes[0].Name, g.Links[0].Name)
			}
		})
	}
	text := writeString(t, mustClos(t, DefaultClos()))
	lines := strings.Split(text, "\n")
	if lines[0] != "30 6 32" || lines[1] != "24 25 26 27 28 29" || lines[2] != "0 24 25Gbps 0.001ms 0" ||
		lines[26] != "24 28 100Gbps 0.001ms 0" || len(lines) != 35 || lines[34] != "" {
		t.Errorf("default Clos written as:\n%s", text)
	}
}

func TestReadFatTree(t *testing.T) {
	r, err := os.Open("testdata/fat.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	f, err := ReadTopology(r, "fat.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Nodes) != 376 || len(f.Switches()) != 56 || len(f.Hosts()) != 320 || len(f.Links) != 480 {
		t.Fatalf("fat.txt: %d nodes, %d switches, %d hosts, %d links", len(f.Nodes), len(f.Switches()), len(f.Hosts()), len(f.Links))
	}
	for _, s := range f.Hosts() {
		for _, d := range f.Hosts() {
			if s != d {
				checkRoute(t, f, s, d)
			}
		}
	}
	// Host 0 and 1 share an edge switch (2*2µs + 2*80ns); the farthest pairs
	// cross the core: 6 links, 2 at 100G and 4 at 400G.
	if got := f.BaseRTT(0, 1); got != 4160*Nanosecond {
		t.Errorf("BaseRTT(n0, n1) = %d", got)
	}
	if got, want := f.BaseRTT(0, 319), 12*Microsecond+2*80*Nanosecond+4*20*Nanosecond; got != want {
		t.Errorf("BaseRTT(n0, n319) = %d, want %d", got, want)
	}
	if got := f.MaxBDP(); got != 153000 {
		t.Errorf("MaxBDP = %d, want 153000", got)
	}
	if got := f.Bottleneck(0, 319); got != 100*Gbps {
		t.Errorf("Bottleneck = %d", got)
	}
	g, err := ReadTopology(strings.NewReader(writeString(t, f)), "fat2.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	sameFabric(t, f, g)
}

func TestReadHPCCExample(t *testing.T) {
	// HPCC's own topology.txt lists more links than its header (HPCC stops
	// reading after link_count); the strict reader refuses the extra lines.
	data, err := os.ReadFile("testdata/hpcc_topology.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadTopology(bytes.NewReader(data), "topology.txt", 0)
	if want := "topology.txt:68: more link lines than the header's 65"; err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
	var head bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	for i := 0; i < 67 && sc.Scan(); i++ {
		head.WriteString(sc.Text() + "\n")
	}
	f, err := ReadTopology(&head, "topology.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Hosts()) != 65 || len(f.Switches()) != 1 || f.BaseRTT(1, 2) != 4160*Nanosecond {
		t.Errorf("%d hosts, %d switches, BaseRTT %d", len(f.Hosts()), len(f.Switches()), f.BaseRTT(1, 2))
	}
}

func TestReadTopologyTolerance(t *testing.T) {
	want := mustRead(t, "3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 1us 0\n")
	for name, in := range map[string]string{
		"blank lines":         "\n\n3 1 2\n\n2\n\n0 2 10Gbps 1us 0\n\n\n1 2 10Gbps 1us 0\n\n",
		"trailing whitespace": "3 1 2  \n2\t\n0 2 10Gbps 1us 0 \n1 2 10Gbps 1us 0\t \n",
		"crlf":                "3 1 2\r\n2\r\n0 2 10Gbps 1us 0\r\n1 2 10Gbps 1us 0\r\n",
		"no final newline":    "3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 10Gbps 0.001ms 0.000000",
		"leading spaces":      "  3 1 2\n 2\n  0 2 10Gbps 1000ns 0\n1 2 10000Mbps 0.000001s 0",
	} {
		t.Run(name, func(t *testing.T) { sameFabric(t, want, mustRead(t, in)) })
	}
	// No switches: the switch line may be blank or absent.
	for _, in := range []string{"2 0 1\n\n0 1 1Gbps 0ms 0\n", "2 0 1\n0 1 1Gbps 0ms 0\n"} {
		f := mustRead(t, in)
		if len(f.Hosts()) != 2 || f.BaseRTT(0, 1) != 8*Microsecond {
			t.Errorf("%q: %d hosts, BaseRTT %d", in, len(f.Hosts()), f.BaseRTT(0, 1))
		}
	}
	if f := mustRead(t, "1 1 0\n0\n"); len(f.Nodes) != 1 || len(f.Hosts()) != 0 {
		t.Error("a lone switch")
	}
	if f := mustRead(t, "0 0 0\n"); len(f.Nodes) != 0 {
		t.Error("empty fabric")
	}
	if f, err := ReadTopology(strings.NewReader("2 2 1\n0 1\n0 1 1Gbps 0ms 0.000000\n"), "x", 4096); err != nil || f.Buffer != 4096 {
		t.Errorf("buffer and error rate: %v", err)
	}
}

func mustRead(t testing.TB, in string) *Fabric {
	t.Helper()
	f, err := ReadTopology(strings.NewReader(in), "t.txt", 0)
	if err != nil {
		t.Fatalf("%q: %v", in, err)
	}
	return f
}

func TestReadTopologyErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "t.txt:1: missing header line \"node_count switch_count link_count\""},
		{"only blank", "\n\n", "t.txt:3: missing header line"},
		{"header fields", "3 1\n", "t.txt:1: header has 2 fields, want 3 (node_count switch_count link_count)"},
		{"header fields 4", "3 1 2 4\n", "t.txt:1: header has 4 fields, want 3"},
		{"bad node count", "x 1 2\n", `t.txt:1: bad node count "x"`},
		{"negative switch count", "3 -1 2\n", `t.txt:1: bad switch count "-1"`},
		{"bad link count", "3 1 2.5\n", `t.txt:1: bad link count "2.5"`},
		{"huge count", "99999999999 0 0\n", `t.txt:1: bad node count "99999999999"`},
		{"switches exceed nodes", "2 3 0\n", "t.txt:1: switch count 3 exceeds node count 2"},
		{"missing switch line", "3 1 0\n", "t.txt:2: missing switch id line (header says 1 switches)"},
		{"switch count mismatch", "3 2 2\n2\n0 2 1Gbps 1us 0\n", "t.txt:2: switch line has 1 ids, header says 2"},
		{"bad switch id", "3 1 2\nx\n", `t.txt:2: bad node id "x"`},
		{"unknown switch id", "3 1 2\n\n3\n", "t.txt:3: unknown node id 3 (node count 3)"},
		{"duplicate switch id", "4 2 3\n3 3\n", "t.txt:2: duplicate switch id 3"},
		{"link fields", "3 1 2\n2\n0 2 1Gbps 1us\n", "t.txt:3: link line has 4 fields, want 5 (src dst rate delay error_rate)"},
		{"link fields 6", "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0 0\n", "t.txt:4: link line has 6 fields, want 5"},
		{"unknown src", "3 1 2\n2\n5 2 1Gbps 1us 0\n", "t.txt:3: unknown node id 5 (node count 3)"},
		{"unknown dst", "3 1 2\n2\n0 2 1Gbps 1us 0\n\n1 -1 1Gbps 1us 0\n", "t.txt:5: unknown node id -1 (node count 3)"},
		{"bad src", "3 1 2\n2\n0x1 2 1Gbps 1us 0\n", `t.txt:3: bad node id "0x1"`},
		{"self link", "3 1 2\n2\n2 2 1Gbps 1us 0\n", "t.txt:3: link from node 2 to itself"},
		{"bad rate unit", "3 1 2\n2\n0 2 1Gbs 1us 0\n", `t.txt:3: bad rate "1Gbs": unknown unit "Gbs" (want bps, Kbps, Mbps, Gbps or Tbps)`},
		{"zero rate", "3 1 2\n2\n0 2 0Gbps 1us 0\n", `t.txt:3: rate "0Gbps" must be positive`},
		{"bad delay", "3 1 2\n2\n0 2 1Gbps 1 0\n", `t.txt:3: bad delay "1": missing unit (want s, ms, us, ns or ps)`},
		{"bad delay unit", "3 1 2\n2\n0 2 1Gbps 1xs 0\n", `t.txt:3: bad delay "1xs": unknown unit "xs"`},
		{"fractional ps", "3 1 2\n2\n0 2 1Gbps 0.1ps 0\n", `t.txt:3: bad delay "0.1ps": not a whole number of ps`},
		{"bad error rate", "3 1 2\n2\n0 2 1Gbps 1us x\n", `t.txt:3: bad error rate "x" (want a number in [0, 1])`},
		{"error rate range", "3 1 2\n2\n0 2 1Gbps 1us 1.5\n", `t.txt:3: bad error rate "1.5"`},
		{"error rate nan", "3 1 2\n2\n0 2 1Gbps 1us NaN\n", `t.txt:3: bad error rate "NaN"`},
		{"lossy link", "3 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 1e-6\n", "t.txt:4: error rate 1e-6: graphcc does not simulate packet loss (its fabric is lossless under PFC); want 0"},
		{"duplicate link", "3 1 3\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n2 0 1Gbps 1us 0\n", "t.txt:5: duplicate link 2-0 (first on line 3)"},
		{"too many links", "3 1 1\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "t.txt:4: more link lines than the header's 1"},
		{"too few links", "3 1 3\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n\n", "t.txt:5: found 2 link lines, header says 3"},
		{"lone host", "1 0 0\n", "t.txt:1: host n0 has no link"},
		{"host without link", "\n4 1 2\n2\n0 2 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "t.txt:2: host n3 has no link"},
		{"huge node count", "1000000000 0 1\n0 1 1Gbps 1us 0\n", "t.txt:1: host n2 has no link"},
		{"no path", "5 2 3\n3 4\n0 3 1Gbps 1us 0\n1 4 1Gbps 1us 0\n2 4 1Gbps 1us 0\n", "t.txt:3: host n0 cannot reach n1"},
		{"no transit through a host", "3 0 2\n\n0 1 1Gbps 1us 0\n1 2 1Gbps 1us 0\n", "t.txt:3: host n0 cannot reach n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTopology(strings.NewReader(tt.in), "t.txt", 0)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := ReadTopology(strings.NewReader("2 0 1\n0 1 1Gbps 0ms 0\n"), "t.txt", -5); err == nil || !strings.Contains(err.Error(), "negative buffer") {
		t.Errorf("negative buffer: %v", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteTopologyError(t *testing.T) {
	err := mustClos(t, DefaultClos()).WriteTopology(failingWriter{})
	if err == nil || !strings.HasPrefix(err.Error(), "write topology: ") {
		t.Fatalf("error = %v", err)
	}
}

func FuzzReadTopology(f *testing.F) {
	f.Add(writeString(f, mustClos(f, DefaultClos())))
	f.Add("3 1 2\n2\n0 2 10Gbps 1us 0\n1 2 2.5Gbps 0.000001s 0.5\n")
	f.Add("2 0 1\n\n0 1 1Gbps 0ms 0\n")
	f.Add("5 2 3\n3 4\n0 3 1Gbps 1us 0\n1 4 1Gbps 1us 0\n2 4 1Gbps 1us 0\n")
	f.Add("\r\n4 2 4\n2 3\n0 2 1Kbps 7ps 1e-3\n1 3 1bps 1.5ms 1\n2 3 1Tbps 0.0ms 0\n1 2 1Mbps 1s -0\n")
	f.Add("0 0 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		a, err := ReadTopology(strings.NewReader(in), "fuzz", 0)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		text := writeString(t, a)
		b, err := ReadTopology(strings.NewReader(text), "fuzz2", 0)
		if err != nil {
			t.Fatalf("re-read of\n%s\nfailed: %v", text, err)
		}
		if !reflect.DeepEqual(a.Nodes, b.Nodes) || !reflect.DeepEqual(a.Links, b.Links) {
			t.Fatalf("round trip changed the fabric:\n%s", text)
		}
		sameFabric(t, a, b)
		if again := writeString(t, b); again != text {
			t.Fatalf("second write differs:\n%s\nvs\n%s", again, text)
		}
	})
}

// TestReadTopologyLongLine reads a file with no line break: it fails naming
// the line, without reading past maxTopologyLine.
func TestReadTopologyLongLine(t *testing.T) {
	r := io.LimitReader(zeroReader{}, maxTopologyLine+4096)
	_, err := ReadTopology(r, "zeros.txt", 0)
	if err == nil || !strings.Contains(err.Error(), "zeros.txt:1: line longer than") {
		t.Errorf("error %v, want zeros.txt:1: line longer than ...", err)
	}
}

type zeroReader struct{}

func (zeroReader) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestFormatDuration(t *testing.T) {
	for ps, want := range map[int64]string{0: "0", Microsecond: "1us", 25 * Millisecond: "25ms",
		2 * Second: "2s", 1500 * Nanosecond: "1500ns", 7: "7ps"} {
		if got := FormatDuration(ps); got != want {
			t.Errorf("FormatDuration(%d) = %q, want %q", ps, got, want)
		}
		if ps > 0 {
			if back, err := ParseDelay(want); err != nil || back != ps {
				t.Errorf("ParseDelay(%q) = %d, %v", want, back, err)
			}
		}
	}
}
