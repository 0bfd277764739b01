package topo

import (
	"slices"
	"strings"
	"testing"
)

// linkNames returns the names of f's links.
func linkNames(f *Fabric) []string {
	var s []string
	for _, l := range f.Links {
		s = append(s, l.Name)
	}
	return s
}

// missing returns the links of f that g lacks.
func missing(f, g *Fabric) []string {
	var s []string
	for _, l := range f.Links {
		if _, ok := g.LinkByName(l.Name); !ok {
			s = append(s, l.Name)
		}
	}
	return s
}

func TestFailLinks(t *testing.T) {
	f := mustClos(t, DefaultClos())
	tests := []struct {
		name string
		fail []string
		want string // error substring, "" for success
		gone []string
	}{
		{"one", []string{"leaf0-spine0"}, "", []string{"leaf0-spine0"}},
		{"reversed name", []string{"spine0-leaf0"}, "", []string{"leaf0-spine0"}},
		{"repeated", []string{"leaf0-spine0", "spine0-leaf0"}, "fail links: link leaf0-spine0 is named twice", nil},
		{"repeated alike", []string{"leaf1-spine0", "leaf0-spine0", "leaf1-spine0"}, "fail links: link leaf1-spine0 is named twice", nil},
		{"two on different leaves", []string{"leaf3-spine1", "leaf0-spine0"}, "", []string{"leaf0-spine0", "leaf3-spine1"}},
		{"none", nil, "", nil},
		{"isolate a leaf", []string{"leaf0-spine0", "leaf0-spine1"}, "failing leaf0-spine0, leaf0-spine1 disconnects h0 from h6", nil},
		{"isolate a later leaf", []string{"spine1-leaf2", "leaf2-spine0"}, "failing leaf2-spine1, leaf2-spine0 disconnects h0 from h12", nil},
		{"a host link", []string{"h3-leaf0"}, "failing h3-leaf0 disconnects h3 from h0", nil},
		{"split the spines", []string{"leaf0-spine1", "leaf1-spine1", "leaf2-spine0", "leaf3-spine0"},
			"failing leaf0-spine1, leaf1-spine1, leaf2-spine0, leaf3-spine0 disconnects h0 from h12", nil},
		{"unknown", []string{"leaf0-spine0", "leaf9-spine0"}, `fail links: unknown link "leaf9-spine0"`, nil},
		{"not a link", []string{"leaf0-leaf1"}, `fail links: unknown link "leaf0-leaf1"`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := f.FailLinks(tt.fail...)
			if tt.want != "" {
				if err == nil || err.Error() != tt.want {
					t.Fatalf("error = %v, want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := missing(f, g); !slices.Equal(got, tt.gone) {
				t.Errorf("failed %v, want %v", got, tt.gone)
			}
			if len(g.Links) != len(f.Links)-len(tt.gone) || len(g.Ports) != 2*len(g.Links) {
				t.Errorf("%d links, %d ports", len(g.Links), len(g.Ports))
			}
			for i, l := range g.Links {
				if l.ID != LinkID(i) {
					t.Errorf("link %d has id %d", i, l.ID)
				}
				if id, ok := f.LinkByName(l.Name); !ok || f.Links[id].A != l.A || f.Links[id].B != l.B {
					t.Errorf("link %s changed", l.Name)
				}
			}
			if !slices.Equal(g.Nodes, f.Nodes) || g.Buffer != f.Buffer {
				t.Error("nodes or buffer changed")
			}
			for _, s := range g.Hosts() {
				for _, d := range g.Hosts() {
					if s != d {
						checkRoute(t, g, s, d)
					}
				}
			}
		})
	}
	if len(f.Links) != 32 {
		t.Fatal("FailLinks changed its receiver")
	}
}

func TestFailLinksRouting(t *testing.T) {
	f := mustClos(t, DefaultClos())
	g, err := f.FailLinks("leaf0-spine0")
	if err != nil {
		t.Fatal(err)
	}
	leaf0, _ := g.NodeByName("leaf0")
	spine1, _ := g.NodeByName("spine1")
	spine0, _ := g.NodeByName("spine0")
	if hops := g.NextHops(leaf0, 6); len(hops) != 1 || g.Ports[hops[0]].Dst != spine1 {
		t.Errorf("NextHops(leaf0, h6) = %v, want the port to spine1", hops)
	}
	// spine0 reaches leaf0's hosts the long way: spine0-leaf1-spine1-leaf0.
	if hops := g.NextHops(spine0, 0); len(hops) != 3 {
		t.Errorf("NextHops(spine0, h0) = %v, want the ports to the 3 other leaves", hops)
	}
	if got := g.BaseRTT(0, 6); got != f.BaseRTT(0, 6) {
		t.Errorf("BaseRTT(h0, h6) = %d, want %d", got, f.BaseRTT(0, 6))
	}
	if got := len(g.Agents()); got != 38 {
		t.Errorf("%d agents, want 38", got)
	}
}

func TestFailRandom(t *testing.T) {
	def := mustClos(t, DefaultClos())
	big := mustClos(t, ClosConfig{Leaves: 8, Spines: 4, HostsPerLeaf: 2, HostRate: 25 * Gbps, FabricRate: 100 * Gbps, LinkDelay: Microsecond})
	tests := []struct {
		name string
		f    *Fabric
		k    int
		want string
	}{
		{"zero", def, 0, ""},
		{"one", def, 1, ""},
		{"three", def, 3, ""},
		{"four: only one spine left", def, 4, ""},
		{"five is impossible", def, 5, "fail random: every set of 5 of the 8 switch-switch links disconnects a host pair"},
		{"more than there are", def, 9, "fail random: cannot fail 9 of 8 switch-switch links"},
		{"negative", def, -1, "fail random: cannot fail -1 of 8 switch-switch links"},
		{"random draws", big, 3, ""},
		{"random draws, many", big, 20, ""},
		{"random draws, impossible", big, 26, "fail random: 1000 draws of 26 of the 32 switch-switch links all disconnect a host pair"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sets [][]string
			for seed := range uint64(6) {
				g, err := tt.f.FailRandom(tt.k, seed)
				if tt.want != "" {
					if err == nil || err.Error() != tt.want {
						t.Fatalf("error = %v, want %q", err, tt.want)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				gone := missing(tt.f, g)
				if len(gone) != tt.k {
					t.Fatalf("seed %d failed %v, want %d links", seed, gone, tt.k)
				}
				for _, name := range gone {
					id, _ := tt.f.LinkByName(name)
					l := tt.f.Links[id]
					if !tt.f.Nodes[l.A].Switch || !tt.f.Nodes[l.B].Switch {
						t.Fatalf("failed host link %s", name)
					}
				}
				again, err := tt.f.FailRandom(tt.k, seed)
				if err != nil || !slices.Equal(linkNames(again), linkNames(g)) {
					t.Fatalf("seed %d not deterministic: %v", seed, err)
				}
				sets = append(sets, gone)
			}
			if tt.k > 0 {
				distinct := map[string]bool{}
				for _, s := range sets {
					distinct[strings.Join(s, ",")] = true
				}
				if len(distinct) < 2 {
					t.Errorf("6 seeds gave one set %v", sets[0])
				}
			}
		})
	}
}

func TestFailRandomPinned(t *testing.T) {
	// Pins the draw so a change of generator use shows up.
	f := mustClos(t, DefaultClos())
	g, err := f.FailRandom(2, 42)
	if err != nil {
		t.Fatal(err)
	}
	got := missing(f, g)
	if want := []string{"leaf0-spine1", "leaf2-spine1"}; !slices.Equal(got, want) {
		t.Errorf("FailRandom(2, 42) failed %v, want %v", got, want)
	}
}

func TestSameLinks(t *testing.T) {
	f, err := Clos(DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := Clos(DefaultClos())
	failed, err := f.FailLinks(f.Links[len(f.Links)-1].Name)
	if err != nil {
		t.Fatal(err)
	}
	c := DefaultClos()
	c.Leaves++
	bigger, _ := Clos(c)
	for _, tc := range []struct {
		name   string
		g, ref *Fabric
		err    string
	}{
		{"itself", f, f, ""},
		{"built the same way", again, f, ""},
		{"a link failed", failed, f, "it lacks link " + f.Links[len(f.Links)-1].Name},
		{"a link more", f, failed, "it has link " + f.Links[len(f.Links)-1].Name + ", which is not there"},
		{"another Clos", bigger, f, "its link"},
	} {
		err := tc.g.SameLinks(tc.ref)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}
