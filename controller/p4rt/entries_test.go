package p4rt

import (
	"bytes"
	"math"
	"strings"
	"testing"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/p4src"
	"graphcc/topo"
)

func TestEncodeUint(t *testing.T) {
	tests := []struct {
		v    uint64
		want []byte
	}{
		{0, []byte{0}},
		{1, []byte{1}},
		{255, []byte{0xff}},
		{256, []byte{1, 0}},
		{100000, []byte{0x01, 0x86, 0xa0}},
		{0x0a000001, []byte{0x0a, 0, 0, 1}},
		{math.MaxUint64, bytes.Repeat([]byte{0xff}, 8)},
	}
	for _, tc := range tests {
		if got := EncodeUint(tc.v); !bytes.Equal(got, tc.want) {
			t.Errorf("EncodeUint(%d) = %x, want %x", tc.v, got, tc.want)
		}
	}
}

func TestDecodeUint(t *testing.T) {
	tests := []struct {
		b     []byte
		width int
		want  uint64
		ok    bool
	}{
		{[]byte{0}, 9, 0, true},
		{[]byte{1, 0xff}, 9, 511, true},
		{[]byte{0, 0, 1, 0xff}, 9, 511, true}, // leading zeros are fine
		{[]byte{2, 0}, 9, 0, false},           // 512 needs 10 bits
		{nil, 9, 0, false},
		{[]byte{0, 1, 0, 0, 0, 0, 0, 0, 0}, 64, 1 << 56, true},
		{[]byte{1, 0, 0, 0, 0, 0, 0, 0, 0}, 64, 0, false},
	}
	for _, tc := range tests {
		got, err := DecodeUint(tc.b, tc.width)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("DecodeUint(%x, %d) = %d, %v; want %d, ok %v", tc.b, tc.width, got, err, tc.want, tc.ok)
		}
	}
}

func FuzzBytestring(f *testing.F) {
	f.Add(uint64(0), []byte{0})
	f.Add(uint64(1<<40), []byte{0, 0, 1, 2})
	f.Fuzz(func(t *testing.T, v uint64, b []byte) {
		if got, err := DecodeUint(EncodeUint(v), 64); err != nil || got != v {
			t.Fatalf("round trip of %d: %d, %v", v, got, err)
		}
		if x, err := DecodeUint(b, 64); err == nil {
			if enc := EncodeUint(x); !bytes.Equal(bytes.TrimLeft(b, "\x00"), bytes.TrimLeft(enc, "\x00")) {
				t.Fatalf("%x decodes to %d, which encodes to %x", b, x, enc)
			}
		}
	})
}

func mustPlan(tb testing.TB, c topo.ClosConfig) *lab.Plan {
	tb.Helper()
	f, err := topo.Clos(c)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := lab.NewPlan("", f)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

func smallClos() topo.ClosConfig {
	c := topo.DefaultClos()
	c.Leaves, c.Spines, c.HostsPerLeaf = 2, 2, 2
	return c
}

// dataplane forwards like graphcc.p4's ingress on the entries of every
// switch: it follows a packet from host src to host dst taking every ECMP
// member, and returns the path lengths (switch hops) of all paths.
type dataplane struct {
	t      *testing.T
	p      *lab.Plan
	info   *P4Info
	routes []map[[4]byte]*p4v1.Action // per switch: destination -> action
	groups []map[[2]uint64]uint64     // per switch: (group, member) -> port
}

func newDataplane(t *testing.T, p *lab.Plan, info *P4Info) *dataplane {
	d := &dataplane{t: t, p: p, info: info}
	for sw := range p.Switches {
		entries, err := ForwardingEntries(info, p, sw)
		if err != nil {
			t.Fatal(err)
		}
		routes, groups := map[[4]byte]*p4v1.Action{}, map[[2]uint64]uint64{}
		for _, e := range entries {
			switch e.GetTableId() {
			case info.IPv4Route:
				lpm := e.GetMatch()[0].GetLpm()
				if e.GetMatch()[0].GetFieldId() != info.FieldDstAddr || lpm.GetPrefixLen() != 32 {
					t.Fatalf("route %v", e)
				}
				v, err := DecodeUint(lpm.GetValue(), 32)
				if err != nil {
					t.Fatal(err)
				}
				key := [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
				if routes[key] != nil {
					t.Fatalf("switch %s: two routes to %v", p.Switches[sw].Name, key)
				}
				routes[key] = e.GetAction().GetAction()
			case info.ECMPGroup:
				var k [2]uint64
				for _, m := range e.GetMatch() {
					v, _ := DecodeUint(m.GetExact().GetValue(), 16)
					if m.GetFieldId() == info.FieldGroup {
						k[0] = v
					} else {
						k[1] = v
					}
				}
				groups[k] = d.port(e.GetAction().GetAction())
			default:
				t.Fatalf("forwarding entry of table %#x", e.GetTableId())
			}
		}
		d.routes = append(d.routes, routes)
		d.groups = append(d.groups, groups)
	}
	return d
}

func (d *dataplane) port(a *p4v1.Action) uint64 {
	if a.GetActionId() != d.info.SetPort || len(a.GetParams()) != 1 || a.GetParams()[0].GetParamId() != d.info.ParamPort {
		d.t.Fatalf("not a set_port: %v", a)
	}
	v, err := DecodeUint(a.GetParams()[0].GetValue(), p4src.PortBits)
	if err != nil {
		d.t.Fatal(err)
	}
	return v
}

// walk returns the hop counts of every path from switch sw to host dst.
func (d *dataplane) walk(sw int, dst *lab.HostPlan, hops int) []int {
	if hops > len(d.p.Switches) {
		d.t.Fatalf("loop towards %s", dst.Name)
	}
	a := d.routes[sw][dst.IP.As4()]
	if a == nil {
		d.t.Fatalf("switch %s has no route to %s", d.p.Switches[sw].Name, dst.Name)
	}
	var ports []uint64
	switch a.GetActionId() {
	case d.info.SetPort:
		ports = []uint64{d.port(a)}
	case d.info.SetGroup:
		g, _ := DecodeUint(a.GetParams()[0].GetValue(), 16)
		n, _ := DecodeUint(a.GetParams()[1].GetValue(), 16)
		if a.GetParams()[0].GetParamId() != d.info.ParamGroup || n < 2 {
			d.t.Fatalf("set_group %v", a)
		}
		for m := range n {
			port, ok := d.groups[sw][[2]uint64{g, m}]
			if !ok {
				d.t.Fatalf("switch %s: group %d has no member %d", d.p.Switches[sw].Name, g, m)
			}
			ports = append(ports, port)
		}
	}
	var lens []int
	for _, num := range ports {
		pp := d.p.Switches[sw].Ports[num-1]
		if pp.Num != uint32(num) {
			d.t.Fatalf("port numbering")
		}
		if pp.Peer == dst.Node {
			lens = append(lens, hops+1)
			continue
		}
		next := -1
		for i, s := range d.p.Switches {
			if s.Node == pp.Peer {
				next = i
			}
		}
		if next < 0 {
			d.t.Fatalf("switch %s port %d leads to host %v, not %s", d.p.Switches[sw].Name, num, pp.Peer, dst.Name)
		}
		lens = append(lens, d.walk(next, dst, hops+1)...)
	}
	return lens
}

// Every host reaches every other over all shortest paths and only those,
// on the default Clos, a small one and one with a failed link.
func TestForwardingEntriesReach(t *testing.T) {
	info := testP4Info(t)
	failed := func() *lab.Plan {
		p := mustPlan(t, smallClos())
		f, err := p.Fabric.FailLinks(p.Fabric.Links[len(p.Fabric.Links)-1].Name)
		if err != nil {
			t.Fatal(err)
		}
		q, err := lab.NewPlan("", f)
		if err != nil {
			t.Fatal(err)
		}
		return q
	}
	for name, p := range map[string]*lab.Plan{
		"default": mustPlan(t, topo.DefaultClos()),
		"small":   mustPlan(t, smallClos()),
		"failed":  failed(),
	} {
		t.Run(name, func(t *testing.T) {
			d := newDataplane(t, p, info)
			for _, src := range p.Hosts {
				first := -1
				for i, s := range p.Switches {
					if s.Node == p.Fabric.Ports[src.Port].Dst {
						first = i
					}
				}
				for _, dst := range p.Hosts {
					if src.Node == dst.Node {
						continue
					}
					lens := d.walk(first, &dst, 0)
					want := len(p.Fabric.NextHops(p.Switches[first].Node, dst.Node))
					if len(lens) < want {
						t.Errorf("%s -> %s: %d paths, the first switch has %d next hops", src.Name, dst.Name, len(lens), want)
					}
					for _, l := range lens[1:] {
						if l != lens[0] {
							t.Errorf("%s -> %s: paths of %v switch hops", src.Name, dst.Name, lens)
						}
					}
				}
			}
		})
	}
}

func TestForwardingEntriesLeaf(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	entries, err := ForwardingEntries(info, p, 0)
	if err != nil {
		t.Fatal(err)
	}
	// leaf0: 2 members of its one group (the spines), then 24 routes
	if len(entries) != 2+24 {
		t.Fatalf("%d entries, want 26", len(entries))
	}
	groups := 0
	for _, e := range entries[2:] {
		if e.GetAction().GetAction().GetActionId() == info.SetGroup {
			groups++
			ps := e.GetAction().GetAction().GetParams()
			if !bytes.Equal(ps[0].GetValue(), []byte{1}) || !bytes.Equal(ps[1].GetValue(), []byte{2}) {
				t.Errorf("set_group params %x %x, want group 1 of 2", ps[0].GetValue(), ps[1].GetValue())
			}
		}
	}
	if groups != 18 {
		t.Errorf("%d routes through the group, want 18 (the other leaves' hosts)", groups)
	}
}

func TestDepthBucketEntries(t *testing.T) {
	info := testP4Info(t)
	entries := DepthBucketEntries(info)
	type rng struct{ lo, hi, bucket uint64 }
	var rs []rng
	prios := map[int32]bool{}
	for _, e := range entries {
		r := e.GetMatch()[0].GetRange()
		lo, err1 := DecodeUint(r.GetLow(), p4src.DepthBits)
		hi, err2 := DecodeUint(r.GetHigh(), p4src.DepthBits)
		b, err3 := DecodeUint(e.GetAction().GetAction().GetParams()[0].GetValue(), 8)
		if err1 != nil || err2 != nil || err3 != nil || lo > hi {
			t.Fatalf("entry %v", e)
		}
		if e.GetPriority() <= 0 || prios[e.GetPriority()] {
			t.Errorf("priority %d", e.GetPriority())
		}
		prios[e.GetPriority()] = true
		rs = append(rs, rng{lo, hi, b})
	}
	check := func(d int64) {
		var hits []uint64
		for _, r := range rs {
			if uint64(d) >= r.lo && uint64(d) <= r.hi {
				hits = append(hits, r.bucket)
			}
		}
		if len(hits) != 1 || hits[0] != uint64(control.DepthBucket(d)) {
			t.Fatalf("depth %d matches buckets %v, control.DepthBucket says %d", d, hits, control.DepthBucket(d))
		}
	}
	for d := range int64(10000) {
		check(d)
	}
	check(1<<p4src.DepthBits - 1)
}

func TestEncodeECN(t *testing.T) {
	tests := []struct {
		e    control.ECN
		want ECNParams
		err  string
	}{
		{control.Alibaba(25 * topo.Gbps), ECNParams{100000, 400000, 13107}, ""},
		{control.ECN{KMin: 0, KMax: 0, PMax: 1}, ECNParams{0, 0, 1 << 16}, ""},
		{control.ECN{KMin: 2000, KMax: math.MaxUint32, PMax: 0.5}, ECNParams{2000, math.MaxUint32, 1 << 15}, ""},
		{control.ECN{KMin: 2000, KMax: math.MaxUint32 + 1, PMax: 0.5}, ECNParams{}, "does not fit"},
		{control.ECN{KMin: -1, KMax: 10, PMax: 0.5}, ECNParams{}, "negative"},
		{control.ECN{KMin: 10, KMax: 1, PMax: 0.5}, ECNParams{}, "below kmin"},
		{control.ECN{KMin: 1, KMax: 10, PMax: math.NaN()}, ECNParams{}, "outside"},
	}
	for _, tc := range tests {
		got, err := EncodeECN(tc.e)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("EncodeECN(%v) error %v, want %q", tc.e, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("EncodeECN(%v) = %+v, %v; want %+v", tc.e, got, err, tc.want)
		}
	}
}

func TestECNEntries(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	ecn := control.StaticSettings(p.Fabric)
	leaf := &p.Switches[0]
	entries, err := ECNEntries(info, p, 0, ecn)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != len(leaf.Ports) {
		t.Fatalf("%d entries for %d ports", len(entries), len(leaf.Ports))
	}
	for i, e := range entries {
		if e.GetTableId() != info.ECNSettings || !bytes.Equal(e.GetMatch()[0].GetExact().GetValue(), []byte{byte(leaf.Ports[i].Num)}) {
			t.Errorf("entry %d: %v", i, e)
		}
	}

	// Nothing changed: no entry. One port changed, or pmax by more than
	// half a step of 2^-16: its entry only.
	cur := append([]control.ECN(nil), ecn...)
	if ch, err := ECNChanges(info, p, 0, ecn, cur); err != nil || len(ch) != 0 {
		t.Errorf("no change: %d entries, %v", len(ch), err)
	}
	port := leaf.Ports[3]
	cur[port.Port].PMax += 1e-7 // rounds to the same fixed point
	if ch, _ := ECNChanges(info, p, 0, ecn, cur); len(ch) != 0 {
		t.Errorf("sub-step pmax change wrote %d entries", len(ch))
	}
	cur[port.Port].KMin = 2000
	ch, err := ECNChanges(info, p, 0, ecn, cur)
	if err != nil || len(ch) != 1 || !bytes.Equal(ch[0].GetMatch()[0].GetExact().GetValue(), []byte{byte(port.Num)}) {
		t.Fatalf("one change: %v, %v", ch, err)
	}
	if got := ch[0].GetAction().GetAction().GetParams()[0].GetValue(); !bytes.Equal(got, []byte{0x07, 0xd0}) {
		t.Errorf("kmin param %x, want 07d0", got)
	}

	// Bad settings name the port.
	cur[port.Port].KMax = 1000 // below kmin
	_, err = ECNChanges(info, p, 0, ecn, cur)
	if err == nil || !strings.Contains(err.Error(), "switch leaf0 port "+port.Iface) {
		t.Errorf("error %v does not name leaf0 port %s", err, port.Iface)
	}
	if _, err := ECNChanges(info, p, 0, ecn, cur[:3]); err == nil {
		t.Error("short settings slice accepted")
	}
}

func TestInitialEntriesCount(t *testing.T) {
	info := testP4Info(t)
	p := mustPlan(t, topo.DefaultClos())
	ecn := control.StaticSettings(p.Fabric)
	for sw, s := range p.Switches {
		entries, err := InitialEntries(info, p, sw, ecn)
		if err != nil {
			t.Fatal(err)
		}
		// leaves: 2 group members + 24 routes; spines: 24 routes (one port each)
		want := 24 + control.DepthBuckets + len(s.Ports)
		if strings.HasPrefix(s.Name, "leaf") {
			want += 2
		}
		if len(entries) != want {
			t.Errorf("%s: %d entries, want %d", s.Name, len(entries), want)
		}
		ups := Updates(p4v1.Update_INSERT, entries)
		if len(ups) != len(entries) || ups[0].GetType() != p4v1.Update_INSERT || ups[0].GetEntity().GetTableEntry() != entries[0] {
			t.Errorf("Updates wraps wrongly")
		}
	}
}
