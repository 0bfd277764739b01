package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"graphcc/topo"
)

// progressEvery is the least wall time between two redraws of the bar.
const progressEvery = 100 * time.Millisecond

// isTerminal reports whether w is a terminal (the bar is drawn only then).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progress draws a bar of flows finished out of the total, described by the
// simulated time, on a terminal. A nil *progress draws nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	first int64 // simulated time of the first flow, ps
	last  time.Time
}

// newProgress returns a bar on w for a run of total flows whose first flow
// starts at first ps, or nil if w is not a terminal.
func newProgress(w io.Writer, total int, first int64) *progress {
	if !isTerminal(w) || total == 0 {
		return nil
	}
	bar := progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("simulating"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetItsString("flows"),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetWidth(30),
		progressbar.OptionClearOnFinish(),
	)
	return &progress{bar: bar, first: first}
}

// update is the replay.Config.Progress callback: it redraws at most every
// progressEvery of wall time.
func (p *progress) update(now int64, completed, _ int) {
	if p == nil {
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

// callback returns update as a replay.Config.Progress, or nil for no bar.
func (p *progress) callback() func(now int64, completed, total int) {
	if p == nil {
		return nil
	}
	return p.update
}

// done removes the bar.
func (p *progress) done() {
	if p == nil {
		return
	}
	p.bar.Clear()
	p.bar.Exit()
}
