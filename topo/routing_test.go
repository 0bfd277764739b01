package topo

import (
	"slices"
	"strings"
	"testing"
)

func TestRoutingWithout(t *testing.T) {
	f, err := Clos(DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	all := f.Routing()
	for _, at := range f.Nodes {
		for _, dst := range f.Hosts() {
			if !slices.Equal(all.NextHops(at.ID, dst), f.NextHops(at.ID, dst)) {
				t.Fatalf("Routing().NextHops(%s, %s) differs from NextHops", at.Name, f.Nodes[dst].Name)
			}
		}
	}
	l, _ := f.LinkByName("leaf0-spine1")
	r, err := f.RoutingWithout([]LinkID{l})
	if err != nil {
		t.Fatal(err)
	}
	g, err := f.FailLinks("leaf0-spine1")
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range f.Nodes {
		for _, dst := range f.Hosts() {
			var want []string
			for _, p := range g.NextHops(at.ID, dst) {
				want = append(want, g.PortName(p))
			}
			var got []string
			for _, p := range r.NextHops(at.ID, dst) {
				if p.Link() == l {
					t.Fatalf("%s -> %s: next hop on the link down", at.Name, f.Nodes[dst].Name)
				}
				got = append(got, f.PortName(p))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s -> %s: next hops %v, want %v", at.Name, f.Nodes[dst].Name, got, want)
			}
		}
	}
	for _, tc := range []struct {
		name string
		down []string
		want string
	}{
		{"host link", []string{"h0-leaf0"}, "disconnects"},
		{"both spines", []string{"leaf0-spine0", "leaf0-spine1"}, "disconnects"},
		{"twice", []string{"leaf0-spine0", "leaf0-spine0"}, "named twice"},
	} {
		var ids []LinkID
		for _, n := range tc.down {
			id, _ := f.LinkByName(n)
			ids = append(ids, id)
		}
		if _, err := f.RoutingWithout(ids); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.want)
		}
	}
	if _, err := f.RoutingWithout([]LinkID{LinkID(len(f.Links))}); err == nil {
		t.Error("a link out of range: no error")
	}
}
