package gnn

import (
	"bytes"
	"errors"
	"graphcc/internal/testfabric"
	"slices"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/dcqcn"
)

// hp returns the host constants TIMER_US,ALPHA_US,DECREASE_US,AI_MBPS,HAI_MBPS.
func hp(timer, alpha, dec, ai, hai float64) control.HostParams {
	h, err := hostProfileOf([5]float64{timer, alpha, dec, ai, hai})
	if err != nil {
		panic(err)
	}
	return h
}

// testProfiles are HPCC's preset and the joint tunes' constants of
// fb60, alistorage60, websearch60 and googlerpc60 (2026-12-06).
func testProfiles() []control.HostParams {
	return []control.HostParams{
		control.DefaultHostParams(), hp(55, 55, 4, 2.5, 25), hp(55, 55, 2, 2.5, 50), hp(100, 55, 16, 5, 25), hp(15, 8, 2, 40, 200),
	}
}

// testHostTable is the table of testProfiles.
func testHostTable(t testing.TB) HostTable {
	t.Helper()
	tab, err := NewHostTable(testProfiles())
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// profilesModel returns a model of shape s with a host head on the table
// of testProfiles, initialised from seed.
func profilesModel(t testing.TB, s Shape, seed uint64) *Model {
	tab := testHostTable(t)
	s.HostActions = tab.Len()
	m := NewModelShape(s, nnNewRand(seed))
	m.HostTable = tab
	return m
}

func TestNewHostTable(t *testing.T) {
	ps := testProfiles()
	many := make([]control.HostParams, MaxHostProfiles+1)
	for i := range many {
		many[i] = hp(float64(10+i), 1, 4, 5, 50)
	}
	for _, tc := range []struct {
		name     string
		profiles []control.HostParams
		err      string
	}{
		{"tunes", ps, ""},
		{"one", ps[:1], ""},
		{"most", many[:MaxHostProfiles], ""},
		{"none", nil, "0 profiles"},
		{"too many", many, "256 profiles"},
		{"repeated", []control.HostParams{ps[0], ps[1], ps[0]}, "profile 2 (300,1,4,5,50) repeats profile 0"},
		{"invalid", []control.HostParams{ps[0], hp(0, 1, 4, 5, 50)}, "host profile 1: host DCQCN: rate-increase timer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := NewHostTable(tc.profiles)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tab.IsGrid() || tab.Len() != len(tc.profiles) || tab.ID() != HostProfilesID || !slices.Equal(tab.Profiles(), tc.profiles) {
				t.Fatalf("table: grid %v, %d actions, id %q, profiles %v", tab.IsGrid(), tab.Len(), tab.ID(), tab.Profiles())
			}
			for a, h := range tc.profiles {
				if tab.Action(a) != h {
					t.Errorf("action %d = %+v, want %+v", a, tab.Action(a), h)
				}
				if got := tab.Nearest(h); got != a {
					t.Errorf("Nearest(profile %d) = %d", a, got)
				}
			}
		})
	}
	// The zero value is the grid.
	var grid HostTable
	if !grid.IsGrid() || grid.Len() != NumHostActions || grid.ID() != HostTableID || grid.Profiles() != nil || grid.Fingerprint() != HostTableID {
		t.Fatalf("zero HostTable: grid %v, %d actions, id %q", grid.IsGrid(), grid.Len(), grid.ID())
	}
	for a := range NumHostActions {
		if grid.Action(a) != HostAction(a) || grid.Nearest(HostAction(a)) != a {
			t.Errorf("grid action %d", a)
		}
	}
	// The profiles are copied in and out.
	tab := testHostTable(t)
	ps[1] = ps[0]
	tab.Profiles()[1] = ps[0]
	if tab.Action(1) != hp(55, 55, 4, 2.5, 25) {
		t.Error("the table shares its profiles")
	}
}

func TestHostTableNearest(t *testing.T) {
	tab := testHostTable(t)
	for _, tc := range []struct {
		name string
		h    control.HostParams
		want int
	}{
		{"preset", control.DefaultHostParams(), 0},
		{"fast timer, big steps", hp(10, 5, 2, 50, 250), 4},
		{"websearch-like", hp(120, 40, 12, 5, 25), 3},
		{"fb-like", hp(50, 60, 4, 2, 25), 1},
		{"alistorage-like", hp(55, 50, 2, 3, 50), 2},
	} {
		if got := tab.Nearest(tc.h); got != tc.want {
			t.Errorf("%s: Nearest = %d, want %d", tc.name, got, tc.want)
		}
	}
	h := hp(20, 20, 3, 30, 100)
	if n := testing.AllocsPerRun(100, func() { tab.Nearest(h) }); n != 0 {
		t.Errorf("HostTable.Nearest allocates %v times", n)
	}
	if got, want := tab.Fingerprint(), HostProfilesID+" 300,1,4,5,50;55,55,4,2.5,25;55,55,2,2.5,50;100,55,16,5,25;15,8,2,40,200"; got != want {
		t.Errorf("Fingerprint %q, want %q", got, want)
	}
}

// TestModelFileHostProfiles: a model on a table of profiles records the
// table (its id and every profile) and reads back as the same table and
// weights, byte for byte; a header whose profiles do not fit the host
// head, or that lists profiles for the grid, or bad ones, fails.
func TestModelFileHostProfiles(t *testing.T) {
	m := profilesModel(t, DefaultShape(), 5)
	b, err := m.File(ActionTableID, nnTestMeta()).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `"host_actions":5,"host_table":"` + HostProfilesID + `","host_profiles":[[300,1,4,5,50],[55,55,4,2.5,25],[55,55,2,2.5,50],[100,55,16,5,25],[15,8,2,40,200]]`
	if !bytes.Contains(b, []byte(want)) {
		t.Fatalf("header lacks the profiles %s: %s", want, b[len(FileMagic)+8:len(FileMagic)+8+nnHeaderLen(b)])
	}
	f, err := Unmarshal(b, "profiles", GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	m2, err := f.Model()
	if err != nil {
		t.Fatal(err)
	}
	if m2.Shape != m.Shape || !slices.Equal(m2.Params, m.Params) || !slices.Equal(m2.HostTable.Profiles(), testProfiles()) {
		t.Fatalf("round trip: shape %+v, profiles %v", m2.Shape, m2.HostTable.Profiles())
	}
	if b2, _ := m2.File(ActionTableID, nnTestMeta()).Marshal(); !bytes.Equal(b, b2) {
		t.Error("a profiles model's file does not round-trip to the same bytes")
	}
	edit := func(old, new string) []byte {
		return nnReseal(nnWithHeader(b, func(h string) string { return strings.Replace(h, old, new, 1) }))
	}
	for _, tc := range []struct {
		name string
		b    []byte
		want error
		msg  string
	}{
		{"fewer profiles", edit(",[15,8,2,40,200]", ""), ErrBadHeader, "host_profiles lists 4 profiles for a host head of host_actions 5"},
		{"no profiles", edit(`,"host_profiles":[[300,1,4,5,50],[55,55,4,2.5,25],[55,55,2,2.5,50],[100,55,16,5,25],[15,8,2,40,200]]`, ""), ErrBadHeader, "lists 0 profiles"},
		{"profiles on the grid", edit(HostProfilesID, HostTableID), ErrBadHeader, "host_profiles given with host_table"},
		{"repeated", edit("[15,8,2,40,200]", "[55,55,2,2.5,50]"), ErrBadHeader, "profile 4 (55,55,2,2.5,50) repeats profile 2"},
		{"invalid", edit("[15,8,2,40,200]", "[0,8,2,40,200]"), ErrBadHeader, "host_profiles: host profile 4"},
		{"negative", edit("[15,8,2,40,200]", "[-15,8,2,40,200]"), ErrBadHeader, "host_profiles[4]: -15 is not in"},
		{"short profile", edit("[15,8,2,40,200]", "[15,8,2,40]"), ErrBadHeader, "canonical"},
		{"other table", edit(HostProfilesID, "graphcc-dcqcn-profiles/v0"), ErrBadHeader, "host_profiles given with host_table"},
	} {
		_, err := Unmarshal(tc.b, "bad", GraphCCExpect())
		if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want %v containing %q", tc.name, err, tc.want, tc.msg)
		}
	}
	// A profiles id without profiles at all on a head of the grid's size.
	grid := NewModelShape(hostShape(), nnNewRand(5))
	gb, _ := grid.File(ActionTableID, nil).Marshal()
	bad := nnReseal(nnWithHeader(gb, func(h string) string { return strings.Replace(h, HostTableID, HostProfilesID, 1) }))
	if _, err := Unmarshal(bad, "bad", GraphCCExpect()); !errors.Is(err, ErrBadHeader) {
		t.Errorf("profiles id without profiles: %v", err)
	}
}

// TestGraphCCHostProfiles: a profiles model's DecideHosts writes the
// profile of every host agent's greedy action, the per-switch policy
// agrees, and neither allocates.
func TestGraphCCHostProfiles(t *testing.T) {
	f := testfabric.SmallClos(t)
	for a := range testProfiles() {
		m := hostBiased(profilesModel(t, DefaultShape(), 7), a)
		g := mustGraphCC(t, m, f, FeatureConfig{})
		ps, err := NewPerSwitch(m, f, FeatureConfig{})
		if err != nil {
			t.Fatal(err)
		}
		tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(f.Ports))}
		ecn, hosts, psHosts := control.StaticSettings(f), make([]control.HostParams, len(f.Ports)), make([]control.HostParams, len(f.Ports))
		g.Decide(tel, ecn)
		g.DecideHosts(tel, hosts)
		ps.Decide(tel, ecn)
		ps.DecideHosts(tel, psHosts)
		for _, p := range g.Hosts() {
			if hosts[p] != testProfiles()[a] || psHosts[p] != hosts[p] {
				t.Errorf("profile %d, host port %d: central %+v, per-switch %+v, want %+v", a, p, hosts[p], psHosts[p], testProfiles()[a])
			}
		}
		if n := testing.AllocsPerRun(20, func() { g.Decide(tel, ecn); g.DecideHosts(tel, hosts) }); n != 0 {
			t.Errorf("GraphCC.Decide and DecideHosts with profiles: %v allocations", n)
		}
		if n := testing.AllocsPerRun(20, func() { ps.Decide(tel, ecn); ps.DecideHosts(tel, psHosts) }); n != 0 {
			t.Errorf("PerSwitch.Decide and DecideHosts with profiles: %v allocations", n)
		}
		g.Inference().Close()
	}
	// A host head of another size than its table is refused.
	m := profilesModel(t, DefaultShape(), 7)
	m.HostTable = HostTable{}
	if _, err := NewGraphCC(m, f, FeatureConfig{}); err == nil || !strings.Contains(err.Error(), "0 or 16 host actions") {
		t.Errorf("NewGraphCC of 5 host actions on the grid: %v", err)
	}
}

// The profiles' units are the spec's: µs and Mbps at 25 Gbps.
func TestHostProfileUnits(t *testing.T) {
	h := hp(15, 8, 2, 2.5, 200)
	want := control.HostParams{IncreaseInterval: 15 * dcqcn.Microsecond, AlphaInterval: 8 * dcqcn.Microsecond,
		DecreaseInterval: 2 * dcqcn.Microsecond, AI: 2500 * dcqcn.Mbps / 1000, HAI: 200 * dcqcn.Mbps}
	if h != want || hostProfileNumbers(h) != [5]float64{15, 8, 2, 2.5, 200} || FormatHostProfile(h) != "15,8,2,2.5,200" {
		t.Errorf("%+v, want %+v (%q)", h, want, FormatHostProfile(h))
	}
}
