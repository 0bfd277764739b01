package bench

import (
	"context"
	"io"
	"log/slog"

	"graphcc/replay"
	"graphcc/scenario"
)

// Measure builds the fabric and traffic of s (scenario.Settings, errors
// naming its settings with prefix) and times runs runs of it in the
// default simulator (Time), until every flow finishes.
func Measure(ctx context.Context, s scenario.Settings, runs int, prefix string, log *slog.Logger) (Case, error) {
	var c Case
	sc, f, err := s.Fabric("sim", prefix)
	if err != nil {
		return c, err
	}
	flows, g, err := s.Traffic(f, prefix)
	if err != nil {
		return c, err
	}
	c = Case{Fabric: sc.DescribeFabric(f), Hosts: len(f.Hosts()), Traffic: g.Describe(), Load: g.Load, Flows: len(flows)}
	if s.Topology == "" {
		c.Leaves, c.HostsPerLeaf, c.Spines = s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.Spines
	}
	log.Info("bench", "fabric", c.Fabric, "traffic", c.Traffic, "flows", len(flows))
	cfg := replay.Config{Fabric: f, Flows: flows, Params: replay.DefaultParams(), Seed: s.Seed}
	err = Time(ctx, cfg, runs, log, &c)
	return c, err
}

// RunSweep measures every shape of Sweep on s, its Clos and load
// replaced by the shape's, into r's cases, and writes the sweep's
// Markdown table to w, a row as each case ends.
func (r *Report) RunSweep(ctx context.Context, s scenario.Settings, w io.Writer, prefix string, log *slog.Logger) error {
	WriteSweepHeader(w, r)
	for _, sh := range Sweep() {
		s.Clos.Leaves, s.Clos.HostsPerLeaf, s.Clos.Spines, s.Gen.Load = sh.Leaves, sh.HostsPerLeaf, sh.Spines, sh.Load
		c, err := Measure(ctx, s, r.RunsEach, prefix, log)
		if err != nil {
			return err
		}
		r.Cases = append(r.Cases, c)
		c.WriteSweepRow(w)
	}
	return nil
}
