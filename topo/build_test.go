package topo

import (
	"slices"
	"strings"
	"testing"
)

func TestNextHopsDefaultClos(t *testing.T) {
	f := mustClos(t, DefaultClos())
	n := func(name string) NodeID {
		id, ok := f.NodeByName(name)
		if !ok {
			t.Fatalf("no node %s", name)
		}
		return id
	}
	port := func(src, dst string) PortID {
		for _, p := range f.Out(n(src)) {
			if f.Ports[p].Dst == n(dst) {
				return p
			}
		}
		t.Fatalf("no port %s->%s", src, dst)
		return -1
	}
	tests := []struct {
		at, dst string
		want    []string // next-hop nodes
	}{
		{"h0", "h1", []string{"leaf0"}},
		{"leaf0", "h1", []string{"h1"}},
		{"h0", "h6", []string{"leaf0"}},
		{"leaf0", "h6", []string{"spine0", "spine1"}}, // ECMP across the spine
		{"spine0", "h6", []string{"leaf1"}},
		{"spine1", "h23", []string{"leaf3"}},
		{"leaf1", "h6", []string{"h6"}},
		{"leaf3", "h0", []string{"spine0", "spine1"}},
		{"h0", "h0", nil},
		{"leaf0", "leaf1", nil}, // not a host
		{"h1", "leaf0", nil},
	}
	for _, tt := range tests {
		var want []PortID
		for _, to := range tt.want {
			want = append(want, port(tt.at, to))
		}
		if got := f.NextHops(n(tt.at), n(tt.dst)); !equalPorts(got, want) {
			t.Errorf("NextHops(%s, %s) = %v, want %v", tt.at, tt.dst, got, want)
		}
	}
	// Every host pair: all next hops of every node on the way lead one hop
	// closer, and the walk reaches dst in 2 or 4 hops.
	for _, s := range f.Hosts() {
		for _, d := range f.Hosts() {
			if s != d {
				checkRoute(t, f, s, d)
			}
		}
	}
}

// checkRoute walks every equal-cost path from src to dst and checks that
// they all arrive with the same hop count, and that BaseRTT is the largest
// RTT over them.
func checkRoute(t *testing.T, f *Fabric, src, dst NodeID) {
	t.Helper()
	type state struct {
		at   NodeID
		hops int
		rtt  int64
	}
	var hopCounts []int
	var maxRTT int64
	stack := []state{{src, 0, 0}}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.at == dst {
			hopCounts = append(hopCounts, s.hops)
			maxRTT = max(maxRTT, s.rtt)
			continue
		}
		if s.hops > len(f.Nodes) {
			t.Fatalf("route %d->%d loops", src, dst)
		}
		next := f.NextHops(s.at, dst)
		if len(next) == 0 {
			t.Fatalf("route %d->%d: no next hop at %d", src, dst, s.at)
		}
		if s.hops > 0 && !f.Nodes[s.at].Switch {
			t.Fatalf("route %d->%d transits host %d", src, dst, s.at)
		}
		for _, p := range next {
			port := f.Ports[p]
			if port.Src != s.at {
				t.Fatalf("NextHops(%d, %d) gave port %d of node %d", s.at, dst, p, port.Src)
			}
			stack = append(stack, state{port.Dst, s.hops + 1, s.rtt + 2*port.Delay + 8000*Second/port.Rate})
		}
	}
	for _, h := range hopCounts {
		if h != hopCounts[0] {
			t.Fatalf("route %d->%d: paths of %v hops", src, dst, hopCounts)
		}
	}
	if got := f.BaseRTT(src, dst); got != maxRTT {
		t.Fatalf("BaseRTT(%d, %d) = %d, want the path maximum %d", src, dst, got, maxRTT)
	}
}

func TestBaseRTTDefaultClos(t *testing.T) {
	f := mustClos(t, DefaultClos())
	tests := []struct {
		src, dst NodeID
		rtt, bw  int64
	}{
		// 2*4*1µs + 2*320ns + 2*80ns
		{0, 6, 8800 * Nanosecond, 25 * Gbps},
		{23, 0, 8800 * Nanosecond, 25 * Gbps},
		// Within a leaf: 2*2µs + 2*320ns = 4.64µs.
		{0, 1, 4640 * Nanosecond, 25 * Gbps},
		{5, 4, 4640 * Nanosecond, 25 * Gbps},
		{3, 3, 0, 0},
		{0, 24, 0, 0}, // not a host
	}
	for _, tt := range tests {
		if got := f.BaseRTT(tt.src, tt.dst); got != tt.rtt {
			t.Errorf("BaseRTT(%d, %d) = %d, want %d", tt.src, tt.dst, got, tt.rtt)
		}
		if got := f.Bottleneck(tt.src, tt.dst); got != tt.bw {
			t.Errorf("Bottleneck(%d, %d) = %d, want %d", tt.src, tt.dst, got, tt.bw)
		}
	}
	if got := f.MaxBDP(); got != 27500 {
		t.Errorf("MaxBDP = %d, want 27500", got)
	}
}

// diamond builds h0 - s0 = {s1, s2} = s3 - h1 with the given s0-s1 and s0-s2
// links, everything else 100 Gbps and 1 µs.
func diamond(t *testing.T, rate1, delay1, rate2, delay2 int64) *Fabric {
	t.Helper()
	nodes := []Node{{0, "h0", false}, {1, "h1", false}, {2, "s0", true}, {3, "s1", true}, {4, "s2", true}, {5, "s3", true}}
	l := func(a, b NodeID, rate, delay int64) Link { return Link{A: a, B: b, Rate: rate, Delay: delay} }
	links := []Link{l(0, 2, 100*Gbps, Microsecond), l(2, 3, rate1, delay1), l(2, 4, rate2, delay2),
		l(3, 5, 100*Gbps, Microsecond), l(4, 5, 100*Gbps, Microsecond), l(5, 1, 100*Gbps, Microsecond)}
	for i := range links {
		links[i].ID = LinkID(i)
	}
	f, err := New(nodes, links, 0)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestBaseRTTUnequalPaths(t *testing.T) {
	const base = 2*3*Microsecond + 3*80*Nanosecond // the three 100G 1µs links
	tests := []struct {
		name          string
		rate1, delay1 int64
		rate2, delay2 int64
		rtt, bw       int64
	}{
		{"longer delay wins", 100 * Gbps, Microsecond, 10 * Gbps, 5 * Microsecond,
			base + 10*Microsecond + 800*Nanosecond, 10 * Gbps},
		{"slower link wins", 10 * Gbps, Microsecond, 100 * Gbps, Microsecond,
			base + 2*Microsecond + 800*Nanosecond, 10 * Gbps},
		// 2*1040ns + 80ns == 2*1000ns + 160ns: equal RTT, take the smaller bottleneck.
		{"tie takes smaller bottleneck", 100 * Gbps, 1040 * Nanosecond, 50 * Gbps, Microsecond,
			base + 2160*Nanosecond, 50 * Gbps},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := diamond(t, tt.rate1, tt.delay1, tt.rate2, tt.delay2)
			for _, pair := range [][2]NodeID{{0, 1}, {1, 0}} {
				if got := f.BaseRTT(pair[0], pair[1]); got != tt.rtt {
					t.Errorf("BaseRTT%v = %d, want %d", pair, got, tt.rtt)
				}
				if got := f.Bottleneck(pair[0], pair[1]); got != tt.bw {
					t.Errorf("Bottleneck%v = %d, want %d", pair, got, tt.bw)
				}
				checkRoute(t, f, pair[0], pair[1])
			}
			if got := f.NextHops(2, 1); !equalPorts(got, []PortID{2, 4}) {
				t.Errorf("NextHops(s0, h1) = %v, want [2 4]", got)
			}
			// MaxBDP uses the path's bottleneck, as HPCC's pairBw.
			if got, want := f.MaxBDP(), tt.rtt*tt.bw/8/Second; got != want {
				t.Errorf("MaxBDP = %d, want %d", got, want)
			}
		})
	}
}

func TestGraphSmallClos(t *testing.T) {
	// h0=0 h1=1 leaf0=2 leaf1=3 spine0=4; ports: 0 h0>leaf0, 1 leaf0>h0,
	// 2 h1>leaf1, 3 leaf1>h1, 4 leaf0>spine0, 5 spine0>leaf0, 6 leaf1>spine0,
	// 7 spine0>leaf1.
	f := mustClos(t, ClosConfig{Leaves: 2, Spines: 1, HostsPerLeaf: 1, HostRate: 25 * Gbps, FabricRate: 100 * Gbps, LinkDelay: Microsecond})
	g := f.Graph()
	want := []struct {
		agent   bool
		in, out []PortID
	}{
		{false, []PortID{1}, []PortID{1, 4}},
		{true, []PortID{0, 5}, []PortID{0}},
		{false, []PortID{3}, []PortID{3, 6}},
		{true, []PortID{2, 7}, []PortID{2}},
		{true, []PortID{0, 5}, []PortID{5, 7}},
		{true, []PortID{4, 6}, []PortID{1, 4}},
		{true, []PortID{2, 7}, []PortID{5, 7}},
		{true, []PortID{4, 6}, []PortID{3, 6}},
	}
	if len(g.Agent) != len(want) || len(g.InStart) != len(want)+1 || len(g.OutStart) != len(want)+1 {
		t.Fatalf("graph sizes %d %d %d", len(g.Agent), len(g.InStart), len(g.OutStart))
	}
	for p, w := range want {
		id := PortID(p)
		if g.Agent[p] != w.agent {
			t.Errorf("Agent[%d] = %v", p, g.Agent[p])
		}
		if got := g.Ingress(id); !equalPorts(got, w.in) {
			t.Errorf("Ingress(%d) = %v, want %v", p, got, w.in)
		}
		if got := g.Egress(id); !equalPorts(got, w.out) {
			t.Errorf("Egress(%d) = %v, want %v", p, got, w.out)
		}
	}
	if got := f.Agents(); !equalPorts(got, []PortID{1, 3, 4, 5, 6, 7}) {
		t.Errorf("Agents = %v", got)
	}
	if f.Graph() != g {
		t.Error("Graph is rebuilt on every call")
	}
}

func TestGraphDefinitionDefaultClos(t *testing.T) {
	f := mustClos(t, DefaultClos())
	g := f.Graph()
	for _, p := range f.Ports {
		var in, out []PortID
		for _, q := range f.Ports {
			if q.Dst == p.Src {
				in = append(in, q.ID)
			}
			if q.Src == p.Dst {
				out = append(out, q.ID)
			}
		}
		if !equalPorts(g.Ingress(p.ID), in) || !equalPorts(g.Egress(p.ID), out) {
			t.Fatalf("port %d: Ingress %v Egress %v, want %v %v", p.ID, g.Ingress(p.ID), g.Egress(p.ID), in, out)
		}
		if g.Agent[p.ID] != f.Nodes[p.Src].Switch || slices.Contains(f.Agents(), p.ID) != g.Agent[p.ID] {
			t.Fatalf("port %d agent flag", p.ID)
		}
	}
}

func TestNewErrors(t *testing.T) {
	h := func(i int, name string) Node { return Node{ID: NodeID(i), Name: name} }
	s := func(i int, name string) Node { return Node{ID: NodeID(i), Name: name, Switch: true} }
	ok := func(a, b NodeID) Link { return Link{A: a, B: b, Rate: Gbps, Delay: Microsecond} }
	base := []Node{h(0, "h0"), h(1, "h1"), s(2, "s0")}
	tests := []struct {
		name   string
		nodes  []Node
		links  []Link
		buffer int64
		want   string
	}{
		{"link to itself", base, []Link{ok(0, 2), ok(2, 2)}, 0, "link 1 (s0-s0): link to itself"},
		{"unknown node", base, []Link{ok(0, 2), ok(1, 7)}, 0, "link 1: unknown node 7"},
		{"negative node", base, []Link{ok(-1, 2)}, 0, "link 0: unknown node -1"},
		{"zero rate", base, []Link{ok(0, 2), {A: 1, B: 2}}, 0, "link h1-s0: non-positive rate 0"},
		{"negative delay", base, []Link{ok(0, 2), {A: 1, B: 2, Rate: 1, Delay: -1}}, 0, "link h1-s0: negative delay -1"},
		{"duplicate link", base, []Link{ok(0, 2), ok(1, 2), ok(2, 0)}, 0, "duplicate link s0-h0 (also link 0, h0-s0)"},
		{"no path", []Node{h(0, "h0"), h(1, "h1"), s(2, "s0"), s(3, "s1"), h(4, "h4")},
			[]Link{ok(0, 2), ok(1, 3), ok(4, 2)}, 0, "fabric: host h0 cannot reach h1"},
		{"no transit through a host", []Node{h(0, "h0"), h(1, "h1"), h(2, "h2")},
			[]Link{ok(0, 1), ok(1, 2)}, 0, "host h0 cannot reach h2"},
		{"host without link", base, []Link{ok(0, 2)}, 0, "host h1 has no link"},
		{"node id", []Node{h(0, "h0"), h(5, "h1")}, nil, 0, "node at index 1 has id 5"},
		{"link id", base, []Link{ok(0, 2), {ID: 3, A: 1, B: 2, Rate: 1}}, 0, "link at index 1 has id 3"},
		{"link name", base, []Link{ok(0, 2), {ID: 1, A: 1, B: 2, Rate: 1, Name: "x"}}, 0, `link 1 is named "x", want "h1-s0"`},
		{"node name with dash", []Node{h(0, "a-b")}, nil, 0, `node 0 name "a-b" contains '-'`},
		{"empty node name", []Node{h(0, "")}, nil, 0, "node 0 has no name"},
		{"duplicate node name", []Node{h(0, "x"), s(1, "x")}, nil, 0, `duplicate node name "x"`},
		{"negative buffer", base, nil, -1, "negative buffer -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			links := slices.Clone(tt.links)
			for i := range links {
				if links[i].ID == 0 {
					links[i].ID = LinkID(i)
				}
			}
			_, err := New(tt.nodes, links, tt.buffer)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "fabric: ") {
				t.Fatalf("New error = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestNewCopiesAndDefaults(t *testing.T) {
	nodes := []Node{{0, "a", false}, {1, "b", false}, {2, "sw", true}}
	links := []Link{{ID: 0, A: 0, B: 2, Rate: Gbps}, {ID: 1, A: 2, B: 1, Rate: Gbps, Name: "sw-b"}}
	f, err := New(nodes, links, 0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Buffer != 32*1024*1024 {
		t.Errorf("Buffer = %d", f.Buffer)
	}
	if f.Links[0].Name != "a-sw" || links[0].Name != "" {
		t.Errorf("names: fabric %q, input %q", f.Links[0].Name, links[0].Name)
	}
	nodes[0].Name = "changed"
	if f.Nodes[0].Name != "a" {
		t.Error("New kept the caller's node slice")
	}
	if got := f.Hosts(); !slices.Equal(got, []NodeID{0, 1}) {
		t.Errorf("Hosts = %v", got)
	}
	if got := f.Switches(); !slices.Equal(got, []NodeID{2}) {
		t.Errorf("Switches = %v", got)
	}
	// Returned slices are capped: appending must not clobber the fabric.
	_ = append(f.Hosts(), 99)
	_ = append(f.NextHops(0, 1), 99)
	if f.Hosts()[:2][1] != 1 || len(f.NextHops(2, 1)) != 1 || f.NextHops(2, 1)[0] != 2 {
		t.Error("append through a returned slice changed the fabric")
	}
	// Tolerates a fabric of one host.
	if _, err := New([]Node{{0, "h", false}, {1, "s", true}}, []Link{{A: 0, B: 1, Rate: 1}}, 0); err != nil {
		t.Errorf("one host: %v", err)
	}
}

func TestPathDelay(t *testing.T) {
	clos := mustClos(t, DefaultClos())
	tests := []struct {
		name     string
		f        *Fabric
		src, dst NodeID
		want     int64
	}{
		{"across the spine", clos, 0, 6, 4 * Microsecond},
		{"across the spine, back", clos, 23, 0, 4 * Microsecond},
		{"within a leaf", clos, 0, 1, 2 * Microsecond},
		{"itself", clos, 3, 3, 0},
		{"not a host", clos, 0, 24, 0},
		// h0-s0 1µs, then the slower of s0-s1 (1µs) and s0-s2 (5µs), then 2µs
		{"largest of unequal paths", diamond(t, 100*Gbps, Microsecond, 10*Gbps, 5*Microsecond), 0, 1, 8 * Microsecond},
		{"largest of unequal paths, back", diamond(t, 100*Gbps, Microsecond, 10*Gbps, 5*Microsecond), 1, 0, 8 * Microsecond},
	}
	for _, tt := range tests {
		if got := tt.f.PathDelay(tt.src, tt.dst); got != tt.want {
			t.Errorf("%s: PathDelay(%d, %d) = %d, want %d", tt.name, tt.src, tt.dst, got, tt.want)
		}
	}
}
