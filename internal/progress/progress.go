// Package progress shows how far graphcc's long commands are, on stderr.
// On a terminal, a bar redrawn in place; elsewhere (a pipe, a log file, a
// batch job) lines that stay readable in a log: a Meter writes one per
// finished run or episode (eval, train, tune), a Sim one at the end of a
// simulation that took longSim or more.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"graphcc/topo"
)

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

// A Meter counts the runs or episodes of a long command: a bar on a
// terminal, else a line per item finished ("graphcc: eval: 3 of 30 runs
// done, 12s"). A nil *Meter shows nothing.
type Meter struct {
	w     io.Writer
	bar   *progressbar.ProgressBar // on a terminal
	what  string                   // the command, "eval"
	unit  string                   // what it counts, "runs"
	total int
	start time.Time
	shown int // items already reported by a line
}

// NewMeter returns a meter of total items on w, or nil for none.
func NewMeter(w io.Writer, what, unit string, total int) *Meter {
	if total <= 0 {
		return nil
	}
	m := &Meter{w: w, what: what, unit: unit, total: total, start: time.Now()}
	if isTerminal(w) {
		m.bar = newBar(w, total, what, unit, true)
	}
	return m
}

// Step records that done items have finished; note, if not empty, says
// how the last one went.
func (m *Meter) Step(done int, note string) {
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

// Done removes the bar.
func (m *Meter) Done() {
	if m != nil && m.bar != nil {
		m.bar.Clear()
		m.bar.Exit()
	}
}

// A Sim shows a simulation's flows finished: a bar described by the
// simulated time on a terminal; elsewhere, one line at the end of a run
// that took longSim or more. A nil *Sim shows nothing.
type Sim struct {
	w     io.Writer
	bar   *progressbar.ProgressBar // on a terminal
	first int64                    // simulated time of the first flow, ps
	total int
	start time.Time
	last  time.Time // of the last redraw
}

// NewSim returns the progress of a run of total flows whose first
// flow starts at first ps, or nil for no flows.
func NewSim(w io.Writer, total int, first int64) *Sim {
	if total == 0 {
		return nil
	}
	p := &Sim{w: w, first: first, total: total, start: time.Now()}
	if isTerminal(w) {
		p.bar = newBar(w, total, "simulating", "flows", false)
	}
	return p
}

// update is the replay.Config.Progress callback: it redraws at most every
// progressEvery of wall time.
func (p *Sim) update(now int64, completed, _ int) {
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

// Callback returns update as a replay.Config.Progress, or nil for none.
func (p *Sim) Callback() func(now int64, completed, total int) {
	if p == nil {
		return nil
	}
	return p.update
}

// Done removes the bar, or, off a terminal, reports a long run that ended
// with completed flows finished by now ps (ok), and says nothing of a
// failed one.
func (p *Sim) Done(ok bool, now int64, completed int) {
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
