package lab

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"net/netip"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"graphcc/topo"
)

func sampleState() *State {
	return &State{
		Version: stateVersion, Lab: "gcc", Phase: PhaseUp, Created: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Scale: 1000, SwitchBinary: "/usr/bin/simple_switch_grpc", CLIBinary: "/usr/bin/simple_switch_CLI",
		CLIJSON: "/run/graphcc/gcc/cli-stub.json", StopGraceNS: int64(DefaultStopGrace), Realtime: 10,
		Namespaces: []string{"gcc-leaf0", "gcc-h0"},
		Links: []LinkState{{Name: "h0-leaf0", Tmp: tmpLinkName("gcc", 0),
			A: Endpoint{Netns: "gcc-h0", Iface: "eth0"}, B: Endpoint{Netns: "gcc-leaf0", Iface: "p1"}}},
		Switches: []SwitchState{{Name: "leaf0", Netns: "gcc-leaf0", DeviceID: 1, GRPCAddr: GRPCAddr, ThriftPort: ThriftPort,
			Log: "/run/graphcc/gcc/leaf0.log", PID: 4242, StartTime: 123456,
			Ports: []PortState{{Num: 1, Iface: "p1", Port: 1, Peer: "h0", RateBps: 25e9, QueueRatePPS: 2982, QueueDepth: 764}}}},
		Hosts: []HostState{{Name: "h0", Netns: "gcc-h0", Iface: "eth0", IP: netip.MustParseAddr("10.0.0.1"), MAC: "02:00:00:00:00:01"}},
	}
}

func TestStateRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := sampleState()
	if err := writeState(dir, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadState(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, s)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "*.tmp")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if err := removeState(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadState(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after remove: %v", err)
	}
	if err := removeState(dir); err != nil {
		t.Errorf("second remove: %v", err)
	}
}

func TestParseStateRejects(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*State)
	}{
		{"version", func(s *State) { s.Version = 2 }},
		{"lab", func(s *State) { s.Lab = "no/pe" }},
		{"phase", func(s *State) { s.Phase = "half" }},
		{"scale", func(s *State) { s.Scale = 0 }},
		{"grace", func(s *State) { s.StopGraceNS = int64(time.Hour) }},
		{"realtime above 99", func(s *State) { s.Realtime = 100 }},
		{"negative realtime", func(s *State) { s.Realtime = -1 }},
		{"foreign namespace", func(s *State) { s.Namespaces = append(s.Namespaces, "other-h0") }},
		{"other lab's namespace", func(s *State) { s.Namespaces = append(s.Namespaces, "gcc-x-h0") }},
		{"bare prefix", func(s *State) { s.Namespaces = append(s.Namespaces, "gcc-") }},
		{"path in namespace", func(s *State) { s.Namespaces = append(s.Namespaces, "gcc-../x") }},
		{"foreign tmp link", func(s *State) { s.Links[0].Tmp = "eth" }},
		{"link netns", func(s *State) { s.Links[0].B.Netns = "x" }},
		{"iface", func(s *State) { s.Links[0].A.Iface = "a/b" }},
		{"long iface", func(s *State) { s.Links[0].A.Iface = "a-very-long-name" }},
		{"switch netns", func(s *State) { s.Switches[0].Netns = "x" }},
		{"pid 1", func(s *State) { s.Switches[0].PID = 1 }},
		{"negative pid", func(s *State) { s.Switches[0].PID = -5 }},
		{"host netns", func(s *State) { s.Hosts[0].Netns = "gcc" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := sampleState()
			tc.edit(s)
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ParseState(b); err == nil {
				t.Error("accepted")
			}
		})
	}
	for _, bad := range []string{"", "{", "null", `{"version":1,"lab":"gcc","phase":"up","scale":1,"extra":1}`, "{}{}"} {
		if _, err := ParseState([]byte(bad)); err == nil {
			t.Errorf("ParseState(%q) accepted", bad)
		}
	}
}

func TestLabNetns(t *testing.T) {
	for _, tc := range []struct {
		lab, name string
		want      bool
	}{
		{"gcc", "gcc-h0", true},
		{"gcc", "gcc-spine12", true},
		{"gcc", "gcc-", false},
		{"gcc", "gcc", false},
		{"gcc", "gcc-x-h0", false}, // lab gcc-x's
		{"gcc-x", "gcc-x-h0", true},
		{"gcc", "gccx-h0", false},
		{"gcc", "gcc-h 0", false},
		{"gcc", "gcc-" + strings.Repeat("a", 40), false},
	} {
		if got := labNetns(tc.lab, tc.name); got != tc.want {
			t.Errorf("labNetns(%q, %q) = %v", tc.lab, tc.name, got)
		}
	}
}

func TestTmpLinkNames(t *testing.T) {
	for _, lab := range []string{"a", "gcc", "abcdefghijkl"} {
		n := tmpLinkName(lab, 999999) + "a"
		if len(n) > maxIfaceName || !strings.HasPrefix(n, tmpLinkPrefix(lab)) {
			t.Errorf("lab %s: temporary name %q", lab, n)
		}
	}
	if tmpLinkPrefix("gcc") == tmpLinkPrefix("gcd") {
		t.Error("two labs share a temporary prefix")
	}
}

// FuzzParseState checks that ParseState never panics, and that whatever it
// accepts survives a write and read unchanged.
func FuzzParseState(f *testing.F) {
	b, _ := json.Marshal(sampleState())
	f.Add(b)
	f.Add([]byte(`{"version":1,"lab":"gcc","phase":"creating","scale":1,"stop_grace_ns":0,"namespaces":["gcc-h0"]}`))
	f.Add([]byte("{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseState(data)
		if err != nil {
			return
		}
		out, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := ParseState(out)
		if err != nil {
			t.Fatalf("re-parse of %s: %v", out, err)
		}
		out2, _ := json.Marshal(s2)
		if !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed\n%s\n%s", out, out2)
		}
	})
}

func TestStateQueueDepths(t *testing.T) {
	s := &State{Lab: "x", Switches: []SwitchState{
		{Name: "leaf0", Ports: []PortState{{Num: 1, Port: 0, QueueDepth: 764}, {Num: 2, Port: 3, QueueDepth: 3054}}},
		{Name: "spine0", Ports: []PortState{{Num: 1, Port: 5, QueueDepth: 64}}},
	}}
	d, err := s.QueueDepths(6)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{764, 0, 0, 3054, 0, 64}; !slices.Equal(d, want) {
		t.Errorf("depths %v, want %v", d, want)
	}
	if _, err := s.QueueDepths(5); err == nil || !strings.Contains(err.Error(), "spine0 port 1") {
		t.Errorf("a port outside the fabric: %v", err)
	}
}

func TestQueueDrainTime(t *testing.T) {
	one, err := topo.New([]topo.Node{{ID: 0, Name: "h0"}, {ID: 1, Name: "h1"}, {ID: 2, Name: "leaf0", Switch: true}},
		[]topo.Link{{ID: 0, A: 0, B: 2, Rate: 25 * topo.Gbps, Delay: topo.Microsecond}, {ID: 1, A: 1, B: 2, Rate: 25 * topo.Gbps, Delay: topo.Microsecond}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	st := &State{Switches: []SwitchState{
		{Ports: []PortState{{QueueRatePPS: 1000, QueueDepth: 100}, {QueueRatePPS: 2000, QueueDepth: 100}}}, // 100 ms, 50 ms
		{Ports: []PortState{{QueueRatePPS: 1000, QueueDepth: 300}, {QueueRatePPS: 0, QueueDepth: 64}}},     // 300 ms; no rate: skipped
	}}
	for _, tc := range []struct {
		name string
		f    *topo.Fabric
		hops int
	}{
		{"one switch", one, 1},
		{"leaf-spine", labPlan(t, "dr", 2, 2, 1).Fabric, 3},
		{"one leaf of a Clos", labPlan(t, "dr1", 1, 1, 2).Fabric, 1},
	} {
		if got := maxSwitchHops(tc.f); got != tc.hops {
			t.Errorf("%s: %d switches on the longest route, want %d", tc.name, got, tc.hops)
		}
		if got, want := QueueDrainTime(st, tc.f), time.Duration(tc.hops)*300*time.Millisecond; got != want {
			t.Errorf("%s: drain time %v, want %v", tc.name, got, want)
		}
	}
}
