package topo

import (
	"strings"
	"testing"
)

func mustClos(t testing.TB, c ClosConfig) *Fabric {
	t.Helper()
	f, err := Clos(c)
	if err != nil {
		t.Fatalf("Clos(%+v): %v", c, err)
	}
	return f
}

func TestDefaultClos(t *testing.T) {
	c := DefaultClos()
	want := ClosConfig{Leaves: 4, Spines: 2, HostsPerLeaf: 6, HostRate: 25 * Gbps, FabricRate: 100 * Gbps,
		LinkDelay: Microsecond, Buffer: 32 * 1024 * 1024}
	if c != want {
		t.Fatalf("DefaultClos() = %+v, want %+v", c, want)
	}
}

func TestClosShapes(t *testing.T) {
	tests := []struct {
		name                                   string
		cfg                                    ClosConfig
		hosts, switches, links, agents, maxBDP int
	}{
		{"default", DefaultClos(), 24, 6, 32, 40, 27500},
		{"flatter", ClosConfig{Leaves: 4, Spines: 2, HostsPerLeaf: 12, HostRate: 25 * Gbps, FabricRate: 100 * Gbps, LinkDelay: Microsecond}, 48, 6, 56, 64, 27500},
		{"one leaf", ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 3, HostRate: 10 * Gbps, FabricRate: 40 * Gbps}, 3, 2, 4, 5, 2000},
		{"single host", ClosConfig{Leaves: 1, Spines: 1, HostsPerLeaf: 1, HostRate: Gbps, FabricRate: Gbps}, 1, 2, 2, 3, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustClos(t, tt.cfg)
			if got := len(f.Hosts()); got != tt.hosts {
				t.Errorf("hosts = %d, want %d", got, tt.hosts)
			}
			if got := len(f.Switches()); got != tt.switches {
				t.Errorf("switches = %d, want %d", got, tt.switches)
			}
			if got := len(f.Links); got != tt.links {
				t.Errorf("links = %d, want %d", got, tt.links)
			}
			if got := len(f.Ports); got != 2*tt.links {
				t.Errorf("ports = %d, want %d", got, 2*tt.links)
			}
			if got := len(f.Agents()); got != tt.agents {
				t.Errorf("agents = %d, want %d", got, tt.agents)
			}
			if got := f.MaxBDP(); got != int64(tt.maxBDP) {
				t.Errorf("MaxBDP = %d, want %d", got, tt.maxBDP)
			}
			wantBuf := tt.cfg.Buffer
			if wantBuf == 0 {
				wantBuf = 32 * 1024 * 1024
			}
			if f.Buffer != wantBuf {
				t.Errorf("Buffer = %d, want %d", f.Buffer, wantBuf)
			}
		})
	}
}

func TestClosNumbering(t *testing.T) {
	f := mustClos(t, DefaultClos())
	for i, n := range f.Nodes {
		if n.ID != NodeID(i) {
			t.Errorf("node %d has id %d", i, n.ID)
		}
	}
	nodes := []struct {
		id       NodeID
		name     string
		isSwitch bool
	}{{0, "h0", false}, {5, "h5", false}, {6, "h6", false}, {23, "h23", false},
		{24, "leaf0", true}, {27, "leaf3", true}, {28, "spine0", true}, {29, "spine1", true}}
	for _, n := range nodes {
		if got := f.Nodes[n.id]; got.Name != n.name || got.Switch != n.isSwitch {
			t.Errorf("node %d = %+v, want name %s switch %v", n.id, got, n.name, n.isSwitch)
		}
		if id, ok := f.NodeByName(n.name); !ok || id != n.id {
			t.Errorf("NodeByName(%s) = %d, %v", n.name, id, ok)
		}
	}
	if len(f.Nodes) != 30 {
		t.Fatalf("%d nodes, want 30", len(f.Nodes))
	}
	links := []struct {
		id   LinkID
		name string
		a, b NodeID
		rate int64
	}{{0, "h0-leaf0", 0, 24, 25 * Gbps}, {6, "h6-leaf1", 6, 25, 25 * Gbps}, {23, "h23-leaf3", 23, 27, 25 * Gbps},
		{24, "leaf0-spine0", 24, 28, 100 * Gbps}, {25, "leaf0-spine1", 24, 29, 100 * Gbps},
		{26, "leaf1-spine0", 25, 28, 100 * Gbps}, {31, "leaf3-spine1", 27, 29, 100 * Gbps}}
	for _, l := range links {
		got := f.Links[l.id]
		if got.ID != l.id || got.Name != l.name || got.A != l.a || got.B != l.b || got.Rate != l.rate || got.Delay != Microsecond {
			t.Errorf("link %d = %+v, want %+v", l.id, got, l)
		}
		for _, name := range []string{l.name, reverseName(l.name)} {
			if id, ok := f.LinkByName(name); !ok || id != l.id {
				t.Errorf("LinkByName(%s) = %d, %v", name, id, ok)
			}
		}
	}
	for _, name := range []string{"h0-leaf1", "leaf0-leaf1", "", "h0", "x-y"} {
		if id, ok := f.LinkByName(name); ok {
			t.Errorf("LinkByName(%q) = %d, want none", name, id)
		}
	}
	if _, ok := f.NodeByName("n0"); ok {
		t.Error("NodeByName(n0) found a node")
	}
	for i, p := range f.Ports {
		l := f.Links[i/2]
		src, dst := l.A, l.B
		if i%2 == 1 {
			src, dst = dst, src
		}
		if p != (Port{ID: PortID(i), Link: l.ID, Src: src, Dst: dst, Rate: l.Rate, Delay: l.Delay}) {
			t.Errorf("port %d = %+v", i, p)
		}
	}
	for _, h := range f.Hosts() {
		if p := f.HostPort(h); p != PortID(2*h) {
			t.Errorf("HostPort(%d) = %d, want %d", h, p, 2*h)
		}
	}
	if p := f.HostPort(24); p != -1 {
		t.Errorf("HostPort(leaf0) = %d, want -1", p)
	}
	if got, want := f.Out(24), []PortID{1, 3, 5, 7, 9, 11, 48, 50}; !equalPorts(got, want) {
		t.Errorf("Out(leaf0) = %v, want %v", got, want)
	}
}

func reverseName(s string) string {
	a, b, _ := strings.Cut(s, "-")
	return b + "-" + a
}

func equalPorts(a, b []PortID) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestClosConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		modify func(*ClosConfig)
		want   string
	}{
		{"leaves", func(c *ClosConfig) { c.Leaves = 0 }, "clos: leaves must be at least 1"},
		{"spines", func(c *ClosConfig) { c.Spines = 0 }, "clos: spines must be at least 1"},
		{"hosts per leaf", func(c *ClosConfig) { c.HostsPerLeaf = -2 }, "clos: hosts per leaf must be at least 1"},
		{"host rate", func(c *ClosConfig) { c.HostRate = 0 }, "clos: host rate must be positive"},
		{"fabric rate", func(c *ClosConfig) { c.FabricRate = -1 }, "clos: fabric rate must be positive"},
		{"link delay", func(c *ClosConfig) { c.LinkDelay = -1 }, "clos: link delay must not be negative"},
		{"buffer", func(c *ClosConfig) { c.Buffer = -1 }, "clos: buffer must not be negative"},
		{"too many", func(c *ClosConfig) { c.Leaves = 1 << 20; c.HostsPerLeaf = 1 << 20 }, "are too many"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultClos()
			tt.modify(&c)
			_, err := Clos(c)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Clos error = %v, want %q", err, tt.want)
			}
		})
	}
}
