package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"graphcc/topo"
)

// How long commands show their progress on stderr. On a terminal, a bar
// redrawn in place; elsewhere (a pipe, a log file, a batch job) lines that
// stay readable in a log: one per finished run or episode for eval and
// train, and one at the end of a simulation that took longSim or more.

// progressEvery is the least wall time between two redraws of a bar.
const progressEvery = 100 * time.Millisecond

// longSim is the wall time from which a simulation reports its end on a
// stderr that is not a terminal; shorter ones stay quiet.
const longSim = 2 * time.Second

// isTerminal reports whether w is a terminal (the bar is drawn only then).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// newBar returns a bar on w counting total items of unit, described by
// desc.
func newBar(w io.Writer, total int, desc, unit string, predict bool) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(predict),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
}

// meter counts the runs or episodes of a long command: a bar on a
// terminal, else a line per item finished ("graphcc: eval: 3 of 30 runs
// done, 12s"). A nil *meter shows nothing.
type meter struct {
	w     io.Writer
	bar   *progressbar.ProgressBar // on a terminal
	what  string                   // the command, "eval"
	unit  string                   // what it counts, "runs"
	total int
	start time.Time
	shown int // items already reported by a line
}

// newMeter returns a meter of total items on w, or nil for none.
func newMeter(w io.Writer, what, unit string, total int) *meter {
	if total <= 0 {
		return nil
	}
	m := &meter{w: w, what: what, unit: unit, total: total, start: time.Now()}
	if isTerminal(w) {
		m.bar = newBar(w, total, what, unit, true)
	}
	return m
}

// step records that done items have finished; note, if not empty, says
// how the last one went.
func (m *meter) step(done int, note string) {
	switch {
	case m == nil:
	case m.bar != nil:
		if note != "" {
			m.bar.Describe(note)
		}
		m.bar.Set(done)
	case done > m.shown:
		m.shown = done
		if note != "" {
			note = ": " + note
		}
		fmt.Fprintf(m.w, "graphcc: %s: %d of %d %s done, %s%s\n", m.what, done, m.total, m.unit,
			time.Since(m.start).Round(time.Second), note)
	}
}

// done removes the bar.
func (m *meter) done() {
	if m != nil && m.bar != nil {
		m.bar.Clear()
		m.bar.Exit()
	}
}

// progress shows a simulation's flows finished: a bar described by the
// simulated time on a terminal; elsewhere, one line at the end of a run
// that took longSim or more. A nil *progress shows nothing.
type progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar // on a terminal
	first int64                    // simulated time of the first flow, ps
	total int
	start time.Time
	last  time.Time // of the last redraw
}

// newProgress returns the progress of a run of total flows whose first
// flow starts at first ps, or nil for no flows.
func newProgress(w io.Writer, total int, first int64) *progress {
	if total == 0 {
		return nil
	}
	p := &progress{w: w, first: first, total: total, start: time.Now()}
	if isTerminal(w) {
		p.bar = newBar(w, total, "simulating", "flows", false)
	}
	return p
}

// update is the replay.Config.Progress callback: it redraws at most every
// progressEvery of wall time.
func (p *progress) update(now int64, completed, _ int) {
	if p.bar == nil {
		return
	}
	t := time.Now()
	if t.Sub(p.last) < progressEvery {
		return
	}
	p.last = t
	p.bar.Describe(fmt.Sprintf("%8.3f ms simulated, flows", float64(now-p.first)/float64(topo.Millisecond)))
	p.bar.Set(completed)
}

// callback returns update as a replay.Config.Progress, or nil for none.
func (p *progress) callback() func(now int64, completed, total int) {
	if p == nil {
		return nil
	}
	return p.update
}

// done removes the bar, or, off a terminal, reports a long run that ended
// with completed flows finished by now ps (ok), and says nothing of a
// failed one.
func (p *progress) done(ok bool, now int64, completed int) {
	switch {
	case p == nil:
	case p.bar != nil:
		p.bar.Clear()
		p.bar.Exit()
	case ok && time.Since(p.start) >= longSim:
		fmt.Fprintf(p.w, "graphcc: sim: %d of %d flows finished by %.3f ms simulated, %s\n", completed, p.total,
			float64(now-p.first)/float64(topo.Millisecond), time.Since(p.start).Round(100*time.Millisecond))
	}
}

// outputs collects the files a command wrote, to name them when it ends.
type outputs struct{ paths []string }

// write writes path through write as writeOutput does and records it.
func (o *outputs) write(flag, path string, write func(w io.Writer) error) error {
	if err := writeOutput(flag, path, write); err != nil {
		return err
	}
	o.add(path)
	return nil
}

// add records path as written.
func (o *outputs) add(path string) { o.paths = append(o.paths, path) }

// report names the files written on w, in one line: "graphcc: wrote a, b".
func (o *outputs) report(w io.Writer) {
	if len(o.paths) > 0 {
		fmt.Fprintf(w, "graphcc: wrote %s\n", strings.Join(o.paths, ", "))
	}
}
