package agent

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"graphcc/control"
	"graphcc/topo"
)

// shadowReport is a report of switch n of f at step j: every sample's
// TxBytes is 1000·(j+1)+port, every chosen setting static's.
func shadowReport(f *topo.Fabric, n topo.NodeID, j uint32) *Report {
	r := &Report{Switch: f.Nodes[n].Name, Step: j, Now: int64(j+1) * 100, Interval: 100}
	static := control.StaticSettings(f)
	for _, p := range f.Out(n) {
		r.Ports = append(r.Ports, p)
		r.Chosen = append(r.Chosen, static[p])
		r.Applied = append(r.Applied, static[p])
	}
	for _, p := range r.Ports[:len(r.Chosen)] {
		if !f.Nodes[f.Ports[p].Dst].Switch {
			r.Ports = append(r.Ports, p.Reverse())
		}
	}
	for _, p := range r.Ports {
		r.Samples = append(r.Samples, control.PortSample{TxBytes: 1000*int64(j+1) + int64(p)})
	}
	r.Written, r.Sent = 1, 2
	return r
}

// fixedPolicy is a central step that decides ecn and, with hosts, the
// hosts' constants hosts.
type fixedPolicy struct {
	ecn   []control.ECN
	hosts []control.HostParams
}

func (p *fixedPolicy) Decide(_ *control.Telemetry, ecn []control.ECN) { copy(ecn, p.ecn) }
func (p *fixedPolicy) DecidesHosts() bool                             { return p.hosts != nil }
func (p *fixedPolicy) DecideHosts(_ *control.Telemetry, h []control.HostParams) {
	copy(h, p.hosts)
}

// The shadow's reads assemble every agent's samples of a step, wait for
// the slowest agent, read zeros for an agent that ended; its loop policy
// counts the agents' choices that differ from the central step's and
// writes the settings the agents applied (an ended agent's: the static
// ones); it refuses reports that do not fit.
func TestShadow(t *testing.T) {
	f := defaultClos(t, nil)
	sws := f.Switches()
	s := NewShadow(f, len(sws), nil, nil)
	dst := make([]control.PortSample, len(f.Ports))
	ctx := t.Context()
	if err := s.ReadTelemetry(ctx, dst); err != nil { // the first read opens the interval
		t.Fatal(err)
	}
	// Every agent reports step 0, then switch 0's no more; at step 1
	// switch 1's applies the static settings while its model chose another
	// on its first port.
	for i, n := range sws {
		if err := s.Add(ctx, i, shadowReport(f, n, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ReadTelemetry(ctx, dst); err != nil {
		t.Fatal(err)
	}
	for i, n := range sws[1:] {
		r := shadowReport(f, n, 1)
		if i == 0 {
			r.Chosen[0].KMin++
			r.Static = true
		}
		if err := s.Add(ctx, i+1, r); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.ReadTelemetry(short, dst); err == nil {
		t.Fatal("read a step with an agent's report missing")
	}
	s.End(0) // switch 0's agent ends without reporting
	if err := s.ReadTelemetry(ctx, dst); err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Out(sws[0]) {
		if dst[p].TxBytes != 0 {
			t.Errorf("port %d of the ended agent reads %d", p, dst[p].TxBytes)
		}
	}
	for _, p := range f.Out(sws[1]) {
		if dst[p].TxBytes != 2000+int64(p) {
			t.Errorf("port %d reads %d, want %d", p, dst[p].TxBytes, 2000+int64(p))
		}
	}
	if now, iv := s.ReadTime(); now != 200 || iv != 100 {
		t.Errorf("read time %d, %d; want 200, 100", now, iv)
	}
	central := &fixedPolicy{ecn: control.StaticSettings(f)}
	p0 := f.Out(sws[0])[0]
	pol := s.LoopPolicy(central)
	ecn := control.StaticSettings(f)
	ecn[p0].KMax++ // what the loop held for the ended agent's port
	pol.Decide(&control.Telemetry{}, ecn)
	if want := control.StaticSettings(f); !slices.Equal(ecn, want) {
		t.Errorf("the loop's settings are not the agents' applied ones (static, and static for the ended agent)")
	}
	written, err := s.SetECN(ctx, ecn)
	if err != nil || written != len(sws)-1 {
		t.Errorf("SetECN: %d, %v; want %d written", written, err, len(sws)-1)
	}
	if n, err := s.SetECN(ctx, ecn); err != nil || n != 0 { // a restore: nothing written
		t.Fatalf("a second SetECN: %d, %v", n, err)
	}
	st := s.Stats()
	if st.Mismatches != 1 || st.Steps != int64(2*len(sws)-1) || st.Messages != 2*int64(2*len(sws)-1) {
		t.Errorf("stats %+v: want 1 mismatch, %d steps, %d messages", st, 2*len(sws)-1, 2*(2*len(sws)-1))
	}
	if want := int64(len(f.Out(sws[1]))); st.StaticPort != want {
		t.Errorf("%d static port-steps, want %d", st.StaticPort, want)
	}

	for _, tc := range []struct {
		name string
		edit func(*Report)
		want string
	}{
		{"a step skipped", func(r *Report) { r.Step = 3 }, "report of step 3 after 2 steps"},
		{"samples short", func(r *Report) { r.Samples = r.Samples[1:] }, "samples"},
		{"applied short", func(r *Report) { r.Applied = r.Applied[1:] }, "applied"},
		{"a port outside", func(r *Report) { r.Ports[0] = topo.PortID(len(f.Ports)) }, "not in the fabric"},
	} {
		r := shadowReport(f, sws[1], 2)
		tc.edit(r)
		if err := s.Add(ctx, 1, r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// hostReport is shadowReport with a host head: the hosts' constants
// chosen are the default ones with AI = 1 Mbps × (port+1).
func hostReport(f *topo.Fabric, n topo.NodeID, j uint32) *Report {
	r := shadowReport(f, n, j)
	for _, p := range r.Ports[len(r.Chosen):] {
		h := control.DefaultHostParams()
		h.AI = int64(p+1) * 1_000_000
		r.Hosts = append(r.Hosts, h)
	}
	return r
}

// With a host head the shadow puts a leaf's hosts on its reported
// constants as it takes the report (on the base ones with Static, and
// after HostsToBase), counts the hosts whose central constants differ,
// and refuses host constants that do not fit.
func TestShadowHosts(t *testing.T) {
	f := defaultClos(t, nil)
	sws := f.Switches()
	leaf := node(t, f, "leaf0")
	li := slices.Index(sws, leaf)
	b := base(f)
	hosts := &fakeHosts{cur: base(f)}
	s := NewShadow(f, len(sws), hosts, b)
	ctx := t.Context()
	dst := make([]control.PortSample, len(f.Ports))
	if err := s.ReadTelemetry(ctx, dst); err != nil {
		t.Fatal(err)
	}
	var r0 *Report
	for i, n := range sws {
		r := hostReport(f, n, 0)
		if n == leaf {
			r.DecidedNS, r.ReportNS, r0 = time.Now().Add(-time.Millisecond).UnixNano(), time.Now().UnixNano(), r
		}
		if err := s.Add(ctx, i, r); err != nil {
			t.Fatal(err)
		}
	}
	rows := r0.Ports[len(r0.Chosen):]
	for k, p := range rows {
		if got := hosts.get(p); got != r0.Hosts[k] {
			t.Errorf("host port %d holds %+v after the report, want %+v", p, got, r0.Hosts[k])
		}
	}
	if err := s.ReadTelemetry(ctx, dst); err != nil {
		t.Fatal(err)
	}
	central := &fixedPolicy{ecn: control.StaticSettings(f), hosts: slices.Clone(hosts.cur)}
	central.hosts[rows[0]].HAI++
	central.hosts[rows[1]].AI++
	pol := s.LoopPolicy(central).(control.HostDecider)
	loopHosts := slices.Clone(b)
	calls := hosts.calls
	pol.Decide(&control.Telemetry{}, control.StaticSettings(f))
	pol.DecideHosts(&control.Telemetry{}, loopHosts)
	if !slices.Equal(loopHosts, hosts.cur) {
		t.Error("the loop's hosts' constants are not those in force")
	}
	if err := s.SetDCQCN(ctx, loopHosts); err != nil || hosts.calls != calls {
		t.Fatalf("SetDCQCN: %v, %d calls of the hosts, want none", err, hosts.calls-calls)
	}
	st := s.Stats()
	if st.HostMismatches != 2 {
		t.Errorf("%d host mismatches, want 2", st.HostMismatches)
	}
	if len(st.HostDelay) != 1 || len(st.HostHop) != 1 || st.HostDelay[0] < time.Millisecond || st.HostHop[0] > st.HostDelay[0] {
		t.Errorf("host delays %v, hops %v: want one each, the delay at least 1 ms and above the hop", st.HostDelay, st.HostHop)
	}
	static := hostReport(f, leaf, 1)
	static.Static = true
	if err := s.Add(ctx, li, static); err != nil {
		t.Fatal(err)
	}
	for _, p := range rows {
		if got := hosts.get(p); got != b[p] {
			t.Errorf("host port %d of a static leaf holds %+v, want the base %+v", p, got, b[p])
		}
	}
	if err := s.Add(ctx, li, hostReport(f, leaf, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.HostsToBase(ctx, li); err != nil {
		t.Fatal(err)
	}
	for _, p := range rows {
		if got := hosts.get(p); got != b[p] {
			t.Errorf("host port %d after HostsToBase holds %+v, want the base %+v", p, got, b[p])
		}
	}
	if other := hostReport(f, sws[li+1], 0).Ports[len(f.Out(sws[li+1]))]; hosts.get(other) == b[other] {
		t.Errorf("host port %d of another leaf went back to the base constants too", other)
	}

	for _, tc := range []struct {
		name string
		edit func(*Report)
		want string
	}{
		{"a host missing", func(r *Report) { r.Hosts = r.Hosts[1:] }, "5 hosts' constants for 6 hosts"},
		{"no hosts", func(r *Report) { r.Hosts = nil }, "0 hosts' constants for 6 hosts"},
		{"a switch port", func(r *Report) {
			r.Chosen, r.Applied, r.Hosts = r.Chosen[1:], r.Applied[1:], append(r.Hosts, r.Hosts[0])
		}, "not a host's NIC port"},
		{"out of range", func(r *Report) { r.Hosts[2].AI = 0 }, "additive increase"},
	} {
		r := hostReport(f, leaf, 3)
		tc.edit(r)
		if err := s.Add(ctx, li, r); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
	plain := NewShadow(f, 1, nil, nil)
	if err := plain.Add(ctx, 0, hostReport(f, leaf, 0)); err == nil || !strings.Contains(err.Error(), "no host head") {
		t.Errorf("hosts' constants without a host head: %v, want an error", err)
	}
}

// Feed takes JSON lines, names the first malformed one, and ends the
// agent at the end of its stream.
func TestShadowFeed(t *testing.T) {
	f := defaultClos(t, nil)
	n := f.Switches()[0]
	var b strings.Builder
	for j := range uint32(2) {
		line, err := json.Marshal(shadowReport(f, n, j))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	s := NewShadow(f, 1, nil, nil)
	if err := s.Feed(t.Context(), 0, strings.NewReader(b.String()+"{not json\n")); err == nil || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("Feed: %v, want an error naming line 3", err)
	}
	if st := s.Stats(); st.Steps != 2 || !s.ended[0] {
		t.Errorf("%d steps, ended %v; want 2, true", st.Steps, s.ended[0])
	}
}

// FuzzShadowFeed feeds arbitrary report streams: Feed must not panic, and
// every report it keeps must fit the fabric.
func FuzzShadowFeed(f *testing.F) {
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		f.Fatal(err)
	}
	line, err := json.Marshal(shadowReport(fab, fab.Switches()[0], 0))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(line) + "\n")
	f.Add(`{"step":0,"ports":[-1],"samples":[{}]}` + "\n")
	f.Add(`{"step":0,"ports":[1,2],"samples":[{}],"chosen":[{},{},{}]}`)
	line, err = json.Marshal(hostReport(fab, fab.Switches()[0], 0))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(line) + "\n")
	f.Fuzz(func(t *testing.T, in string) {
		for _, hosts := range []*fakeHosts{nil, {cur: base(fab)}} {
			s := NewShadow(fab, 1, nil, nil)
			if hosts != nil {
				s = NewShadow(fab, 1, hosts, base(fab))
			}
			s.Feed(t.Context(), 0, strings.NewReader(in))
			for _, r := range s.reports[0] {
				checkKept(t, fab, hosts != nil, r)
			}
			if hosts == nil {
				continue
			}
			for _, p := range control.HostPorts(fab) {
				if err := hosts.cur[p].Validate(); err != nil {
					t.Fatalf("host port %d put on invalid constants: %v", p, err)
				}
			}
		}
	})
}

// checkKept fails unless report r, which a shadow kept, fits fabric f.
func checkKept(t *testing.T, f *topo.Fabric, hostHead bool, r *Report) {
	if len(r.Samples) != len(r.Ports) || len(r.Chosen) > len(r.Ports) {
		t.Fatalf("kept a report of %d ports, %d samples, %d settings", len(r.Ports), len(r.Samples), len(r.Chosen))
	}
	for _, p := range r.Ports {
		if p < 0 || int(p) >= len(f.Ports) {
			t.Fatalf("kept port %d", p)
		}
	}
	if !hostHead && len(r.Hosts) > 0 || hostHead && len(r.Hosts) != len(r.Ports)-len(r.Chosen) {
		t.Fatalf("kept %d hosts' constants for %d host rows (host head %v)", len(r.Hosts), len(r.Ports)-len(r.Chosen), hostHead)
	}
}

// Stats pairs each message's send with its receipt by step, round and
// sending port: the one-way times are the receipts' minus the sends'
// (overall and by round), a receipt with no send is in the handoffs alone,
// and a round the receiving report did not run is left out of the rounds.
func TestShadowTiming(t *testing.T) {
	f := defaultClos(t, nil)
	sws := f.Switches()
	s := NewShadow(f, 2, nil, nil)
	a, b := shadowReport(f, sws[0], 0), shadowReport(f, sws[1], 0)
	pa := f.Out(sws[0])[0]
	a.StartNS, a.ReadNS, b.StartNS, b.ReadNS = 1, 2, 3, 4
	a.RoundNS, b.RoundNS = []int64{10, 10}, []int64{10, 10}
	a.Out = []MsgTime{{Round: 1, Port: pa, At: 1000, NS: 5}, {Round: 2, Port: pa, At: 5000, NS: 6}, {Round: 3, Port: pa, At: 8000, NS: 7}}
	b.In = []MsgTime{
		{Round: 1, Port: pa, At: 1700, NS: 30},
		{Round: 2, Port: pa, At: 5200, NS: 40},
		{Round: 3, Port: pa, At: 9000, NS: 50},           // a round b did not run
		{Round: 1, Port: pa.Reverse(), At: 9000, NS: 60}, // never sent
	}
	for i, r := range []*Report{a, b} {
		if err := s.Add(t.Context(), i, r); err != nil {
			t.Fatal(err)
		}
	}
	st := s.Stats()
	want := func(name string, got []time.Duration, w ...time.Duration) {
		t.Helper()
		if !slices.Equal(got, w) {
			t.Errorf("%s %v, want %v", name, got, w)
		}
	}
	want("start", st.Start, 1, 3)
	want("read", st.Read, 2, 4)
	want("send", st.Send, 5, 6, 7)
	want("one-way", st.OneWay, 700, 200, 1000)
	want("handoff", st.Handoff, 30, 40, 50, 60)
	if len(st.OneWayByRound) != 2 {
		t.Fatalf("one-way by round %v, want 2 rounds", st.OneWayByRound)
	}
	want("round 1", st.OneWayByRound[0], 700)
	want("round 2", st.OneWayByRound[1], 200)
}
