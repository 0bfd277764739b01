package gnn

import (
	"fmt"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/topo"
)

func TestActionTable(t *testing.T) {
	if NumActions != 120 {
		t.Fatalf("NumActions = %d, want 120", NumActions)
	}
	// The documented order: pair-major in increasing (kmin, kmax), then pmax.
	var want [][3]float64
	for _, kmin := range []int64{2, 4, 8, 16, 32} {
		for _, kmax := range []int64{16, 32, 64, 128, 256} {
			if kmin > kmax {
				continue
			}
			for _, p := range []float64{0.01, 0.25, 0.5, 0.75, 1.0} {
				want = append(want, [3]float64{float64(kmin), float64(kmax), p})
			}
		}
	}
	if len(want) != NumActions {
		t.Fatalf("reference table has %d entries", len(want))
	}
	seen := map[control.ECN]int{}
	for a := range NumActions {
		kmin, kmax, pmax := ActionLevels(a)
		if got := [3]float64{float64(kmin), float64(kmax), pmax}; got != want[a] {
			t.Errorf("ActionLevels(%d) = %v, want %v", a, got, want[a])
		}
		if kmin > kmax {
			t.Errorf("action %d: kmin %d > kmax %d", a, kmin, kmax)
		}
		e := Action(a, ActionRefRate)
		if e != (control.ECN{KMin: kmin * 1000, KMax: kmax * 1000, PMax: pmax}) {
			t.Errorf("Action(%d, 25G) = %v", a, e)
		}
		if b, dup := seen[e]; dup {
			t.Errorf("actions %d and %d are the same setting %v", b, a, e)
		}
		seen[e] = a
	}
	for _, c := range []struct {
		a    int
		want control.ECN
	}{
		{0, control.ECN{KMin: 2000, KMax: 16000, PMax: 0.01}},
		{4, control.ECN{KMin: 2000, KMax: 16000, PMax: 1}},
		{5, control.ECN{KMin: 2000, KMax: 32000, PMax: 0.01}},
		{24, control.ECN{KMin: 2000, KMax: 256000, PMax: 1}},
		{25, control.ECN{KMin: 4000, KMax: 16000, PMax: 0.01}},
		{99, control.ECN{KMin: 16000, KMax: 256000, PMax: 1}},
		{100, control.ECN{KMin: 32000, KMax: 32000, PMax: 0.01}},
		{119, control.ECN{KMin: 32000, KMax: 256000, PMax: 1}},
	} {
		if got := Action(c.a, 25*topo.Gbps); got != c.want {
			t.Errorf("Action(%d, 25G) = %v, want %v", c.a, got, c.want)
		}
	}
}

func TestActionScaling(t *testing.T) {
	for _, c := range []struct {
		rate       int64
		kmin, kmax int64
	}{
		{25 * topo.Gbps, 2000, 16000},
		{100 * topo.Gbps, 8000, 64000},
		{50 * topo.Gbps, 4000, 32000},
		{10 * topo.Gbps, 800, 6400},
		{25 * topo.Mbps, 2, 16}, // a testbed scaled down 1000x
	} {
		e := Action(0, c.rate)
		if e.KMin != c.kmin || e.KMax != c.kmax || e.PMax != 0.01 {
			t.Errorf("Action(0, %d) = %+v, want kmin %d kmax %d", c.rate, e, c.kmin, c.kmax)
		}
	}
}

func TestActionRoundTrip(t *testing.T) {
	for _, rate := range []int64{25 * topo.Gbps, 100 * topo.Gbps, 40 * topo.Gbps, 10 * topo.Gbps} {
		t.Run(fmt.Sprint(rate/topo.Gbps, "G"), func(t *testing.T) {
			for a := range NumActions {
				e := Action(a, rate)
				if err := e.Validate(); err != nil {
					t.Errorf("action %d: %v", a, err)
				}
				if e.KMin > e.KMax {
					t.Errorf("action %d: %v has kmin > kmax", a, e)
				}
				if got := ActionsPaper.Nearest(e, rate); got != a {
					t.Errorf("ActionsPaper.Nearest(Action(%d)) = %d", a, got)
				}
				for _, s := range ActionSets() {
					if got := s.Nearest(s.Setting(a, rate), rate); got != a {
						t.Errorf("%v: Nearest(Setting(%d)) = %d", s, a, got)
					}
				}
			}
		})
	}
}

// TestNearestExtended maps settings graphcc tune found (docs/learning.md,
// "Yardsticks") to the extended table, as imitation labels them.
func TestNearestExtended(t *testing.T) {
	g25, g100 := 25*topo.Gbps, 100*topo.Gbps
	idx := func(kmin, kmax int64, pmax float64) int {
		for a := range NumActions {
			if k1, k2, p := ActionsExtended.Levels(a); k1 == kmin && k2 == kmax && p == pmax {
				return a
			}
		}
		t.Fatalf("(%d, %d, %v) is not in the extended table", kmin, kmax, pmax)
		return -1
	}
	for _, c := range []struct {
		name string
		e    control.ECN
		rate int64
		want int
	}{
		{"fb60-incast 0,32,0.0283", control.ECN{KMin: 0, KMax: 32 * control.KB, PMax: 0.0283}, g25, idx(0, 32, 0.01)},
		{"fb60 1.41,32,0.02", control.ECN{KMin: 1444, KMax: 32 * control.KB, PMax: 0.02}, g25, idx(2, 32, 0.01)},
		{"websearch60 32,512,1", control.ECN{KMin: 32 * control.KB, KMax: 512 * control.KB, PMax: 1}, g25, idx(32, 512, 1)},
		{"0,2,1 below the table", control.ECN{KMin: 0, KMax: 2 * control.KB, PMax: 1}, g25, idx(0, 4, 1)},
		{"4x at 100G", control.ECN{KMin: 32 * control.KB, KMax: 256 * control.KB, PMax: 0.5}, g100, idx(8, 64, 0.5)},
	} {
		if got := ActionsExtended.Nearest(c.e, c.rate); got != c.want {
			k1, k2, p := ActionsExtended.Levels(got)
			t.Errorf("%s: Nearest = %d (%d,%d,%v), want %d", c.name, got, k1, k2, p, c.want)
		}
	}
}

func TestNearestAction(t *testing.T) {
	g25, g100 := 25*topo.Gbps, 100*topo.Gbps
	for _, c := range []struct {
		name string
		e    control.ECN
		rate int64
		want int
	}{
		// Alibaba: 100 KB, 400 KB, 0.2 -> (32, 256, 0.25).
		{"alibaba 25G", control.Alibaba(g25), g25, 23*5 + 1},
		{"alibaba 100G", control.Alibaba(g100), g100, 23*5 + 1},
		{"zero", control.ECN{}, g25, 0},
		{"huge", control.ECN{KMin: 1e9, KMax: 2e9, PMax: 1}, g25, 119},
		{"near (4,64,0.5)", control.ECN{KMin: 4100, KMax: 60000, PMax: 0.45}, g25, 7*5 + 2},
		{"kmin above kmax levels", control.ECN{KMin: 100e3, KMax: 20e3, PMax: 0.01}, g25, 20*5 + 0},
		{"4x at 100G", control.ECN{KMin: 16000, KMax: 128000, PMax: 0.75}, g100, 6*5 + 3},
	} {
		if got := ActionsPaper.Nearest(c.e, c.rate); got != c.want {
			t.Errorf("%s: ActionsPaper.Nearest(%v) = %d, want %d", c.name, c.e, got, c.want)
		}
	}
}

func TestActionPanics(t *testing.T) {
	for _, a := range []int{-1, NumActions} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Action(%d) did not panic", a)
				}
			}()
			Action(a, ActionRefRate)
		}()
	}
}

// TestActionTableID checks that the ID describes the tables, so that it
// must change with them.
func TestActionTableID(t *testing.T) {
	join := func(n int, f func(i int) string) string {
		s := make([]string, n)
		for i := range s {
			s[i] = f(i)
		}
		return strings.Join(s, ",")
	}
	want := fmt.Sprintf("graphcc-ecn-actions/v1 kmin=%sKB kmax=%sKB pmax=%s ref=%dGbps order=pair-major(kmin,kmax)-then-pmax",
		join(len(ActionKMinKB), func(i int) string { return fmt.Sprint(ActionKMinKB[i]) }),
		join(len(ActionKMaxKB), func(i int) string { return fmt.Sprint(ActionKMaxKB[i]) }),
		join(len(ActionPMax), func(i int) string { return fmt.Sprint(ActionPMax[i]) }),
		ActionRefRate/topo.Gbps)
	if ActionTableID != want {
		t.Errorf("ActionTableID = %q, the tables say %q", ActionTableID, want)
	}
}

// TestMaxKMax checks the queue depths testbed up gives the lab: deep
// enough for every setting of the action table, and as they were when the
// lab computed them itself (764 packets at 25 Gbps, 3054 at 100 Gbps).
func TestMaxKMax(t *testing.T) {
	// the extended table's last action has the largest kmax of any set
	for _, tc := range []struct{ rate, depth int64 }{{25 * topo.Gbps, 978}, {100 * topo.Gbps, 3910}} {
		kmax := MaxKMax(tc.rate)
		if want := ActionsExtended.Setting(NumActions-1, tc.rate).KMax; kmax != want || kmax <= Action(NumActions-1, tc.rate).KMax {
			t.Errorf("rate %d: largest kmax %d, want the extended table's last action's %d", tc.rate, kmax, want)
		}
		d := lab.QueueDepth(tc.rate, kmax)
		if d*lab.FrameBytes <= kmax {
			t.Errorf("rate %d: depth %d packets is not above kmax %d bytes", tc.rate, d, kmax)
		}
		if d != tc.depth {
			t.Errorf("rate %d: depth %d packets, want %d", tc.rate, d, tc.depth)
		}
	}
}

// TestActionSets checks the extended table: its levels in the documented
// order, every setting distinct, the paper grid's leaders and the
// below-grid and light settings issue 23's searches found among them, and
// the sets' names and table ids round trip.
func TestActionSets(t *testing.T) {
	var want [][3]float64
	for _, kmin := range []int64{0, 2, 8, 32, 64} {
		for _, kmax := range []int64{4, 16, 32, 64, 256, 512} {
			if kmin > kmax {
				continue
			}
			for _, p := range []float64{0.01, 0.25, 0.5, 0.75, 1.0} {
				want = append(want, [3]float64{float64(kmin), float64(kmax), p})
			}
		}
	}
	if len(want) != NumActions {
		t.Fatalf("extended reference table has %d entries, want %d", len(want), NumActions)
	}
	seen := map[control.ECN]bool{}
	for a := range NumActions {
		kmin, kmax, pmax := ActionsExtended.Levels(a)
		if got := [3]float64{float64(kmin), float64(kmax), pmax}; got != want[a] {
			t.Errorf("extended action %d = %v, want %v", a, got, want[a])
		}
		e := ActionsExtended.Setting(a, 50*topo.Gbps)
		if e != (control.ECN{KMin: 2 * kmin * 1000, KMax: 2 * kmax * 1000, PMax: pmax}) || seen[e] {
			t.Errorf("extended action %d at 50 Gbps: %v (seen before: %v)", a, e, seen[e])
		}
		seen[e] = true
		if ActionsPaper.Setting(a, ActionRefRate) != Action(a, ActionRefRate) {
			t.Errorf("paper action %d differs from Action", a)
		}
	}
	for _, e := range []control.ECN{{KMin: 0, KMax: 4000, PMax: 1}, {KMin: 2000, KMax: 16000, PMax: 1}, {KMin: 2000, KMax: 32000, PMax: 0.01},
		{KMin: 32000, KMax: 256000, PMax: 0.75}, {KMin: 64000, KMax: 512000, PMax: 0.25}} {
		if !seen[(control.ECN{KMin: 2 * e.KMin, KMax: 2 * e.KMax, PMax: e.PMax})] {
			t.Errorf("the extended table lacks %v", e)
		}
	}
	for _, s := range ActionSets() {
		if got, err := ParseActionSet(s.String()); err != nil || got != s {
			t.Errorf("ParseActionSet(%s) = %v, %v", s, got, err)
		}
		if got, err := ActionSetOfTable(s.TableID()); err != nil || got != s {
			t.Errorf("ActionSetOfTable(%s) = %v, %v", s.TableID(), got, err)
		}
	}
	if _, err := ParseActionSet("grid"); err == nil || !strings.Contains(err.Error(), `unknown action set "grid"`) {
		t.Errorf("ParseActionSet(grid): %v", err)
	}
	if _, err := ActionSetOfTable("v0"); err == nil {
		t.Error("an unknown table has a set")
	}
}

// TestExtendedModelFile checks that a model of the extended set records
// its table, loads with GraphCCExpect as the extended set, and that its
// policy writes the extended table's settings.
func TestExtendedModelFile(t *testing.T) {
	m := NewModel(nnNewRand(3))
	m.ActionSet = ActionsExtended
	b, err := m.File(m.ActionSet.TableID(), nil).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	f, err := Unmarshal(b, "ext", GraphCCExpect())
	if err != nil {
		t.Fatal(err)
	}
	back, err := f.Model()
	if err != nil || back.ActionSet != ActionsExtended || f.ActionTable != ExtendedActionTableID {
		t.Fatalf("loaded set %v, table %q, %v", back.ActionSet, f.ActionTable, err)
	}
	fab, err := topo.Clos(topo.DefaultClos())
	if err != nil {
		t.Fatal(err)
	}
	g := mustGraphCC(t, back, fab, FeatureConfig{})
	ecn := control.StaticSettings(fab)
	tel := &control.Telemetry{Interval: testDt, Ports: make([]control.PortSample, len(fab.Ports))}
	g.Decide(tel, ecn)
	for i, p := range g.agents {
		if want := ActionsExtended.Setting(g.actions[i], fab.Ports[p].Rate); ecn[p] != want {
			t.Fatalf("agent %d: %v, want the extended table's %v", i, ecn[p], want)
		}
	}
	// an unknown table is refused, naming both known ones
	bad, _ := m.File("graphcc-ecn-actions/v0", nil).Marshal()
	if _, err := Unmarshal(bad, "v0", GraphCCExpect()); err == nil || !strings.Contains(err.Error(), "extended-v1") {
		t.Errorf("unknown table: %v", err)
	}
}

// TestRPCActions checks the rpc table: its id names its levels, it holds
// every setting of the extended table but those of kmin 64 KB, and the
// setting googlerpc60's joint tune found (marking from 0.5 KB) maps to a
// kmax of 1 KB, where the extended table's floor is 4 KB.
func TestRPCActions(t *testing.T) {
	ints := func(v []int64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = fmt.Sprint(x)
		}
		return strings.Join(s, ",")
	}
	if want := "graphcc-ecn-actions/rpc-v1 kmin=" + ints(RPCKMinKB[:]) + "KB kmax=" + ints(RPCKMaxKB[:]) + "KB"; !strings.HasPrefix(RPCActionTableID, want+" ") {
		t.Errorf("RPCActionTableID = %q, the levels say %q…", RPCActionTableID, want)
	}
	rpc := map[[3]float64]bool{}
	for a := range NumActions {
		kmin, kmax, p := ActionsRPC.Levels(a)
		if kmin > kmax {
			t.Errorf("rpc action %d: kmin %d above kmax %d", a, kmin, kmax)
		}
		rpc[[3]float64{float64(kmin), float64(kmax), p}] = true
	}
	if len(rpc) != NumActions {
		t.Errorf("rpc table has %d distinct settings, want %d", len(rpc), NumActions)
	}
	for a := range NumActions {
		kmin, kmax, p := ActionsExtended.Levels(a)
		if kmin != 64 && !rpc[[3]float64{float64(kmin), float64(kmax), p}] {
			t.Errorf("rpc table lacks the extended setting %d,%d,%v", kmin, kmax, p)
		}
	}
	for _, tc := range []struct {
		s    ActionSet
		kmax int64
	}{{ActionsExtended, 4}, {ActionsRPC, 1}} {
		_, kmax, p := tc.s.Levels(tc.s.Nearest(control.ECN{KMin: 0, KMax: 500, PMax: 0.707}, ActionRefRate))
		if kmax != tc.kmax || p != 0.75 {
			t.Errorf("%s: googlerpc60's 0,0.5,0.707 maps to kmax %d KB, pmax %v; want %d KB, 0.75", tc.s, kmax, p, tc.kmax)
		}
	}
}
