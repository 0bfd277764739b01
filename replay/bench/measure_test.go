package bench

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"graphcc/scenario"
)

// TestMeasure times a tiny Clos built from settings, and refuses bad
// settings naming them.
func TestMeasure(t *testing.T) {
	s := scenario.DefaultSettings()
	s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.Spines = 2, 2, 1
	s.Gen.Duration, s.Gen.IncastPeriod = "200us", "0"
	log := slog.New(slog.DiscardHandler)
	c, err := Measure(context.Background(), s, 1, "--", log)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hosts != 4 || c.Leaves != 2 || c.HostsPerLeaf != 2 || c.Spines != 1 || c.Flows == 0 || c.Completed != c.Flows || len(c.Runs) != 1 ||
		!strings.HasPrefix(c.Fabric, "Clos of 2 leaves x 2 hosts, 1 spines") {
		t.Errorf("case %+v", c)
	}
	s.Gen.Workload = "nope"
	if _, err := Measure(context.Background(), s, 1, "--", log); err == nil || !strings.HasPrefix(err.Error(), "--workload nope: ") {
		t.Errorf("bad workload: %v", err)
	}
	r := NewReport(1)
	var b strings.Builder
	if err := r.RunSweep(context.Background(), s, &b, "--", log); err == nil || !strings.HasPrefix(err.Error(), "--workload nope: ") || len(r.Cases) != 0 ||
		!strings.Contains(b.String(), "| hosts | fabric |") {
		t.Errorf("sweep of a bad workload: %v, %d cases, %q", err, len(r.Cases), b.String())
	}
}
