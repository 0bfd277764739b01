package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"graphcc/internal/fileio"
	"graphcc/replay"
)

// benchOpts are the flags of graphcc bench.
type benchOpts struct {
	sc         scenarioFlags
	runs       int
	json       string
	sweep      bool
	cpuprofile string
}

// benchScenario is the benchmark: the GraphCC scenario without incasts
// (FB_Hadoop at 60 % load, 25 ms of arrivals, seed 1), run until every flow
// finishes.
func benchScenario() scenarioFlags {
	sc := defaultScenario()
	sc.incastPeriod = "0"
	return sc
}

// sweepCase is one row of --sweep.
type sweepCase struct {
	leaves, hostsPerLeaf, spines int
	load                         float64
}

// sweepCases are the loads of the GraphCC evaluation on the default Clos,
// then larger fabrics at the training load. Every shape keeps its leaves
// non-blocking, host capacity under uplink capacity: 6x25G under 2x100G,
// 12x25G under 4x100G, 24x25G under 8x100G.
func sweepCases() []sweepCase {
	return []sweepCase{
		{4, 6, 2, 0.4}, {4, 6, 2, 0.6}, {4, 6, 2, 0.8}, {4, 6, 2, 0.9},
		{8, 12, 4, 0.6},
		{16, 24, 8, 0.6},
	}
}

// benchRun is one timed run.
type benchRun struct {
	WallSeconds  float64 `json:"wall_seconds"`
	EventsPerSec float64 `json:"events_per_second"`
	SimPerWall   float64 `json:"sim_per_wall"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
}

// benchCase is the result of one scenario run --runs times.
type benchCase struct {
	Fabric       string     `json:"fabric"`
	Hosts        int        `json:"hosts"`
	Leaves       int        `json:"leaves,omitempty"`
	HostsPerLeaf int        `json:"hosts_per_leaf,omitempty"`
	Spines       int        `json:"spines,omitempty"`
	Traffic      string     `json:"traffic"`
	Load         float64    `json:"load"`
	Flows        int        `json:"flows"`
	Completed    int        `json:"completed"`
	DataPackets  int64      `json:"data_packets"`
	Events       int64      `json:"events"`
	SimSeconds   float64    `json:"sim_seconds"`
	Runs         []benchRun `json:"runs"`
	WallBest     float64    `json:"wall_seconds_best"`
	WallMedian   float64    `json:"wall_seconds_median"`
	EventsPerSec float64    `json:"events_per_second_best"`
	SimPerWall   float64    `json:"sim_per_wall_best"`
	PeakRSSBytes int64      `json:"peak_rss_bytes"`
}

// benchReport is the --json output.
type benchReport struct {
	GoVersion  string      `json:"go_version"`
	GOOS       string      `json:"goos"`
	GOARCH     string      `json:"goarch"`
	GOMAXPROCS int         `json:"gomaxprocs"`
	NumCPU     int         `json:"num_cpu"`
	RunsEach   int         `json:"runs_each"`
	Cases      []benchCase `json:"cases"`
}

func newBenchCmd(logger loggerFunc) *cobra.Command {
	o := benchOpts{sc: benchScenario(), runs: 3}
	cmd := &cobra.Command{
		Use:   "bench [flags]",
		Short: "Time the simulator on the benchmark scenario",
		Long: `bench times the simulator on the benchmark scenario: the GraphCC Clos with
FB_Hadoop at 60 % load WITHOUT incasts, 25 ms of arrivals, seed 1, run until
every flow finishes. The trace is generated once; each of --runs runs is timed
alone (the simulator is single-threaded; GOMAXPROCS is left as it is). It
prints flows, data packets sent (retransmissions included), events, events
per wall second, simulated seconds per wall second, wall time (best and
median) and the peak RSS (reset before each run where Linux allows it).

--sweep runs loads 0.4, 0.6, 0.8 and 0.9 on the default Clos (24 hosts) and
load 0.6 on 96 hosts (8 leaves x 12 hosts, 4 spines) and 384 hosts (16 leaves
x 24 hosts, 8 spines), and prints a Markdown table.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.run(cmd.Context(), cmd, logger(cmd))
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.IntVar(&o.runs, "runs", o.runs, "timed runs per scenario")
	fs.StringVar(&o.json, "json", "", "also write the results here as JSON")
	fs.BoolVar(&o.sweep, "sweep", false, "run the load and fabric-size sweep and print a Markdown table")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the timed runs here (go tool pprof)")
	o.sc.addFabricFlags(fs)
	o.sc.addTrafficFlags(fs)
	o.sc.addSeedFlag(fs)
	return cmd
}

func (o *benchOpts) run(ctx context.Context, cmd *cobra.Command, log *slog.Logger) error {
	if o.runs < 1 {
		return fmt.Errorf("--runs %d: must be at least 1", o.runs)
	}
	if err := checkOutputs("json", o.json, "cpuprofile", o.cpuprofile); err != nil {
		return err
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	fs := cmd.Flags()
	out := cmd.OutOrStdout()
	report := benchReport{
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), RunsEach: o.runs,
	}
	if o.sweep {
		for _, n := range []string{"load", "leaves", "spines", "hosts-per-leaf", "topo"} {
			if fs.Changed(n) {
				return fmt.Errorf("--%s: --sweep sets the load and the fabric itself", n)
			}
		}
		fmt.Fprintf(out, "%d run(s) per row, best wall time; %s, GOMAXPROCS=%d (the simulator is single-threaded)\n\n",
			o.runs, runtime.Version(), report.GOMAXPROCS)
		fmt.Fprintln(out, "| hosts | fabric | load | flows | events | wall s | events/s | sim/wall | peak RSS |")
		fmt.Fprintln(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|")
		for _, c := range sweepCases() {
			sc := o.sc
			sc.leaves, sc.hostsPerLeaf, sc.spines, sc.load = c.leaves, c.hostsPerLeaf, c.spines, c.load
			bc, err := benchOne(ctx, &sc, fs, o.runs, log)
			if err != nil {
				return err
			}
			report.Cases = append(report.Cases, bc)
			fmt.Fprintf(out, "| %d | %dx%d, %d spines | %g | %d | %d | %.3f | %s | %.4f | %s |\n",
				bc.Hosts, c.leaves, c.hostsPerLeaf, c.spines, c.load, bc.Flows, bc.Events,
				bc.WallBest, siCount(bc.EventsPerSec), bc.SimPerWall, mib(bc.PeakRSSBytes))
		}
	} else {
		bc, err := benchOne(ctx, &o.sc, fs, o.runs, log)
		if err != nil {
			return err
		}
		report.Cases = append(report.Cases, bc)
		if err := writeBenchCase(out, bc, report.GOMAXPROCS); err != nil {
			return err
		}
	}
	if o.json != "" {
		return writeOutput("json", o.json, func(w io.Writer) error { return fileio.WriteJSON(w, report) })
	}
	return nil
}

// benchOne builds the scenario of sc once and times runs runs of it.
func benchOne(ctx context.Context, sc *scenarioFlags, fs flagChanger, runs int, log *slog.Logger) (benchCase, error) {
	var bc benchCase
	f, err := sc.fabric(fs, log)
	if err != nil {
		return bc, err
	}
	flows, g, err := sc.generate(f, fs)
	if err != nil {
		return bc, err
	}
	params := replay.DefaultParams()
	bc = benchCase{
		Fabric:  sc.describeFabric(f),
		Hosts:   len(f.Hosts()),
		Traffic: sc.describeTraffic(g),
		Load:    g.Load,
		Flows:   len(flows),
	}
	if sc.topoFile == "" {
		bc.Leaves, bc.HostsPerLeaf, bc.Spines = sc.leaves, sc.hostsPerLeaf, sc.spines
	}
	log.Info("bench", "fabric", bc.Fabric, "traffic", bc.Traffic, "flows", len(flows))
	for i := range runs {
		cfg := replay.Config{Fabric: f, Flows: flows, Params: params, Seed: sc.seed}
		runtime.GC()
		debug.FreeOSMemory()
		resetPeakRSS()
		res, err := simulate(ctx, cfg)
		if err != nil {
			return bc, err
		}
		s := res.Summary
		if i > 0 && s.Events != bc.Events {
			log.Warn("runs differ: the simulator is not deterministic", "events", s.Events, "first", bc.Events)
		}
		bc.Events, bc.Completed, bc.SimSeconds = s.Events, s.Completed, s.SimSeconds
		bc.DataPackets = res.Counters.DataPackets
		r := benchRun{WallSeconds: s.WallSeconds, PeakRSSBytes: s.PeakRSSBytes}
		if s.WallSeconds > 0 {
			r.EventsPerSec = float64(s.Events) / s.WallSeconds
			r.SimPerWall = s.SimSeconds / s.WallSeconds
		}
		bc.Runs = append(bc.Runs, r)
		bc.PeakRSSBytes = max(bc.PeakRSSBytes, r.PeakRSSBytes)
		log.Info("bench run", "run", i+1, "wall_seconds", r.WallSeconds, "events", s.Events)
	}
	walls := make([]float64, len(bc.Runs))
	for i, r := range bc.Runs {
		walls[i] = r.WallSeconds
	}
	slices.Sort(walls)
	bc.WallBest = walls[0]
	if n := len(walls); n%2 == 1 {
		bc.WallMedian = walls[n/2]
	} else {
		bc.WallMedian = (walls[n/2-1] + walls[n/2]) / 2
	}
	if bc.WallBest > 0 {
		bc.EventsPerSec = float64(bc.Events) / bc.WallBest
		bc.SimPerWall = bc.SimSeconds / bc.WallBest
	}
	return bc, nil
}

// flagChanger is what scenarioFlags.fabric asks of a flag set.
type flagChanger interface{ Changed(name string) bool }

// writeBenchCase prints one benchmark result.
func writeBenchCase(w io.Writer, bc benchCase, procs int) error {
	fmt.Fprintf(w, "# %s; %s; until every flow finishes\n\n", bc.Fabric, bc.Traffic)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\twall s\tevents/s\tsim/wall\tpeak RSS")
	for i, r := range bc.Runs {
		fmt.Fprintf(tw, "%d\t%.3f\t%s\t%.4f\t%s\n", i+1, r.WallSeconds, siCount(r.EventsPerSec), r.SimPerWall, mib(r.PeakRSSBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "flows\t%d (%d completed)\n", bc.Flows, bc.Completed)
	fmt.Fprintf(tw, "data packets\t%d\n", bc.DataPackets)
	fmt.Fprintf(tw, "events\t%d\n", bc.Events)
	fmt.Fprintf(tw, "simulated\t%.6f s\n", bc.SimSeconds)
	runs := "runs"
	if len(bc.Runs) == 1 {
		runs = "run"
	}
	fmt.Fprintf(tw, "wall\tbest %.3f s, median %.3f s (%d %s, GOMAXPROCS=%d, single-threaded)\n", bc.WallBest, bc.WallMedian, len(bc.Runs), runs, procs)
	fmt.Fprintf(tw, "events/s\t%s (best)\n", siCount(bc.EventsPerSec))
	fmt.Fprintf(tw, "sim/wall\t%.4f (best; simulated seconds per wall second)\n", bc.SimPerWall)
	fmt.Fprintf(tw, "peak RSS\t%s\n", mib(bc.PeakRSSBytes))
	return tw.Flush()
}

// resetPeakRSS resets the kernel's peak RSS of this process (VmHWM) so the
// next metrics.PeakRSS measures one run; best effort (Linux >= 4.0).
func resetPeakRSS() {
	if f, err := os.OpenFile("/proc/self/clear_refs", os.O_WRONLY, 0); err == nil {
		f.WriteString("5")
		f.Close()
	}
}

// siCount writes a rate with an SI prefix: "3.21M".
func siCount(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2fG", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// mib writes bytes in MiB.
func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
