package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"text/tabwriter"

	"graphcc/replay"
)

// Run is one timed run.
type Run struct {
	WallSeconds  float64 `json:"wall_seconds"`
	EventsPerSec float64 `json:"events_per_second"`
	SimPerWall   float64 `json:"sim_per_wall"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
}

// Case is the result of one scenario run several times. The caller fills
// the description (Fabric to Flows); Time fills the rest.
type Case struct {
	Fabric       string  `json:"fabric"`
	Hosts        int     `json:"hosts"`
	Leaves       int     `json:"leaves,omitempty"`
	HostsPerLeaf int     `json:"hosts_per_leaf,omitempty"`
	Spines       int     `json:"spines,omitempty"`
	Traffic      string  `json:"traffic"`
	Load         float64 `json:"load"`
	Flows        int     `json:"flows"`
	Completed    int     `json:"completed"`
	DataPackets  int64   `json:"data_packets"`
	Events       int64   `json:"events"`
	SimSeconds   float64 `json:"sim_seconds"`
	Runs         []Run   `json:"runs"`
	WallBest     float64 `json:"wall_seconds_best"`
	WallMedian   float64 `json:"wall_seconds_median"`
	EventsPerSec float64 `json:"events_per_second_best"`
	SimPerWall   float64 `json:"sim_per_wall_best"`
	PeakRSSBytes int64   `json:"peak_rss_bytes"`
}

// Report is a benchmark's results with the machine they ran on, as JSON.
type Report struct {
	GoVersion  string `json:"go_version"`
	GOOS       string `json:"goos"`
	GOARCH     string `json:"goarch"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	NumCPU     int    `json:"num_cpu"`
	RunsEach   int    `json:"runs_each"`
	Cases      []Case `json:"cases"`
}

// NewReport returns the report of runs runs per case on this machine,
// without cases.
func NewReport(runs int) Report {
	return Report{
		GoVersion: runtime.Version(), GOOS: runtime.GOOS, GOARCH: runtime.GOARCH,
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), RunsEach: runs,
	}
}

// Shape is one case of the sweep: a Clos and a load.
type Shape struct {
	Leaves, HostsPerLeaf, Spines int
	Load                         float64
}

// Sweep is the sweep's cases: the loads of the GraphCC evaluation on the
// default Clos, then larger fabrics at the training load. Every shape
// keeps its leaves non-blocking, host capacity under uplink capacity:
// 6x25G under 2x100G, 12x25G under 4x100G, 24x25G under 8x100G.
func Sweep() []Shape {
	return []Shape{
		{4, 6, 2, 0.4}, {4, 6, 2, 0.6}, {4, 6, 2, 0.8}, {4, 6, 2, 0.9},
		{8, 12, 4, 0.6},
		{16, 24, 8, 0.6},
	}
}

// Time runs cfg runs times, each alone after a garbage collection and a
// reset of the peak RSS (ResetPeakRSS), and records the runs and their
// best and median into c. A run whose event count differs from the
// first's is logged as a warning: the simulator is meant to be
// deterministic.
func Time(ctx context.Context, cfg replay.Config, runs int, log *slog.Logger, c *Case) error {
	for i := range runs {
		runtime.GC()
		debug.FreeOSMemory()
		ResetPeakRSS()
		res, err := replay.RunContext(ctx, cfg)
		if err != nil {
			return err
		}
		s := res.Summary
		if i > 0 && s.Events != c.Events {
			log.Warn("runs differ: the simulator is not deterministic", "events", s.Events, "first", c.Events)
		}
		c.Events, c.Completed, c.SimSeconds = s.Events, s.Completed, s.SimSeconds
		c.DataPackets = res.Counters.DataPackets
		r := Run{WallSeconds: s.WallSeconds, PeakRSSBytes: s.PeakRSSBytes}
		if s.WallSeconds > 0 {
			r.EventsPerSec = float64(s.Events) / s.WallSeconds
			r.SimPerWall = s.SimSeconds / s.WallSeconds
		}
		c.Runs = append(c.Runs, r)
		c.PeakRSSBytes = max(c.PeakRSSBytes, r.PeakRSSBytes)
		log.Info("bench run", "run", i+1, "wall_seconds", r.WallSeconds, "events", s.Events)
	}
	c.best()
	return nil
}

// best sets the best and median wall time of c's runs, and the rates of
// the best.
func (c *Case) best() {
	walls := make([]float64, len(c.Runs))
	for i, r := range c.Runs {
		walls[i] = r.WallSeconds
	}
	slices.Sort(walls)
	c.WallBest = walls[0]
	if n := len(walls); n%2 == 1 {
		c.WallMedian = walls[n/2]
	} else {
		c.WallMedian = (walls[n/2-1] + walls[n/2]) / 2
	}
	if c.WallBest > 0 {
		c.EventsPerSec = float64(c.Events) / c.WallBest
		c.SimPerWall = c.SimSeconds / c.WallBest
	}
}

// WriteText prints c: a table of its runs, then its totals; procs is the
// GOMAXPROCS they ran with.
func (c *Case) WriteText(w io.Writer, procs int) error {
	fmt.Fprintf(w, "# %s; %s; until every flow finishes\n\n", c.Fabric, c.Traffic)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\twall s\tevents/s\tsim/wall\tpeak RSS")
	for i, r := range c.Runs {
		fmt.Fprintf(tw, "%d\t%.3f\t%s\t%.4f\t%s\n", i+1, r.WallSeconds, siCount(r.EventsPerSec), r.SimPerWall, mib(r.PeakRSSBytes))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "flows\t%d (%d completed)\n", c.Flows, c.Completed)
	fmt.Fprintf(tw, "data packets\t%d\n", c.DataPackets)
	fmt.Fprintf(tw, "events\t%d\n", c.Events)
	fmt.Fprintf(tw, "simulated\t%.6f s\n", c.SimSeconds)
	runs := "runs"
	if len(c.Runs) == 1 {
		runs = "run"
	}
	fmt.Fprintf(tw, "wall\tbest %.3f s, median %.3f s (%d %s, GOMAXPROCS=%d, single-threaded)\n", c.WallBest, c.WallMedian, len(c.Runs), runs, procs)
	fmt.Fprintf(tw, "events/s\t%s (best)\n", siCount(c.EventsPerSec))
	fmt.Fprintf(tw, "sim/wall\t%.4f (best; simulated seconds per wall second)\n", c.SimPerWall)
	fmt.Fprintf(tw, "peak RSS\t%s\n", mib(c.PeakRSSBytes))
	return tw.Flush()
}

// WriteSweepHeader prints the head of the sweep's Markdown table for a
// report r.
func WriteSweepHeader(w io.Writer, r *Report) {
	fmt.Fprintf(w, "%d run(s) per row, best wall time; %s, GOMAXPROCS=%d (the simulator is single-threaded)\n\n",
		r.RunsEach, r.GoVersion, r.GOMAXPROCS)
	fmt.Fprintln(w, "| hosts | fabric | load | flows | events | wall s | events/s | sim/wall | peak RSS |")
	fmt.Fprintln(w, "|---:|---|---:|---:|---:|---:|---:|---:|---:|")
}

// WriteSweepRow prints c as a row of the sweep's table.
func (c *Case) WriteSweepRow(w io.Writer) {
	fmt.Fprintf(w, "| %d | %dx%d, %d spines | %g | %d | %d | %.3f | %s | %.4f | %s |\n",
		c.Hosts, c.Leaves, c.HostsPerLeaf, c.Spines, c.Load, c.Flows, c.Events,
		c.WallBest, siCount(c.EventsPerSec), c.SimPerWall, mib(c.PeakRSSBytes))
}

// ResetPeakRSS resets the kernel's peak RSS of this process (VmHWM) so
// that the next metrics.PeakRSS measures one run; best effort (Linux >=
// 4.0).
func ResetPeakRSS() {
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
