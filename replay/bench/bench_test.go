package bench

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"graphcc/internal/testfabric"
	"graphcc/replay"
)

// TestTime times two runs of a tiny scenario and prints them.
func TestTime(t *testing.T) {
	sc := testfabric.TinyScenario()
	sc.Gen.Incast.Period = 0
	f, flows, err := sc.Build(1)
	if err != nil {
		t.Fatal(err)
	}
	c := Case{Fabric: "tiny", Traffic: "no incasts", Hosts: len(f.Hosts()), Leaves: 2, HostsPerLeaf: 2, Spines: 1, Load: sc.Gen.Load, Flows: len(flows)}
	cfg := replay.Config{Fabric: f, Flows: flows, Params: replay.DefaultParams(), Seed: 1}
	if err := Time(context.Background(), cfg, 2, slog.New(slog.DiscardHandler), &c); err != nil {
		t.Fatal(err)
	}
	if len(c.Runs) != 2 || c.Events == 0 || c.Completed != len(flows) || c.DataPackets == 0 || c.SimSeconds <= 0 {
		t.Errorf("case %+v", c)
	}
	if c.WallBest > c.WallMedian || c.WallBest <= 0 || c.EventsPerSec <= 0 || c.SimPerWall <= 0 {
		t.Errorf("best %g, median %g, events/s %g, sim/wall %g", c.WallBest, c.WallMedian, c.EventsPerSec, c.SimPerWall)
	}
	var b strings.Builder
	if err := c.WriteText(&b, 1); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# tiny; no incasts; until every flow finishes", "events/s", "(2 runs, GOMAXPROCS=1, single-threaded)", "peak RSS"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	r := NewReport(2)
	r.Cases = append(r.Cases, c)
	b.Reset()
	WriteSweepHeader(&b, &r)
	c.WriteSweepRow(&b)
	if !strings.Contains(b.String(), "2 run(s) per row") || !strings.Contains(b.String(), "| 4 | 2x2, 1 spines | ") {
		t.Errorf("sweep table:\n%s", b.String())
	}
	if _, err := json.Marshal(r); err != nil {
		t.Fatal(err)
	}
}

// TestSIAndMiB checks the units of the printed rates and sizes.
func TestSIAndMiB(t *testing.T) {
	for v, want := range map[float64]string{3.214e6: "3.21M", 999: "999", 1500: "1.50k", 2e9: "2.00G"} {
		if got := siCount(v); got != want {
			t.Errorf("siCount(%g) = %q, want %q", v, got, want)
		}
	}
	if got := mib(3 << 20); got != "3.0 MiB" {
		t.Errorf("mib = %q", got)
	}
}

// TestSweepShapes: every shape of the sweep keeps its leaves
// non-blocking at the default rates (hosts x 25G <= spines x 100G).
func TestSweepShapes(t *testing.T) {
	for _, s := range Sweep() {
		if s.HostsPerLeaf*25 > s.Spines*100 || s.Load <= 0 || s.Load > 1 {
			t.Errorf("shape %+v", s)
		}
	}
}
