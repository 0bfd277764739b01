package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
)

// StopTimeout bounds Processes.Stop's wait for an agent after SIGTERM,
// and the wait for the controller's client to be primary again.
const StopTimeout = 10 * time.Second

// ProcessConfig configures Processes.
type ProcessConfig struct {
	// Command returns the program and arguments of switch i's agent (the
	// index into Plan.Switches); Start adds the clock's flags (ClockArgs).
	Command func(i int) (string, []string)
	Plan    *lab.Plan
	// Backup are the controller's clients of the switches (Plan order),
	// dialled before the agents with a lower election id: when an agent
	// ends, the switch makes its client primary again and it puts the
	// switch's ports on Static.
	Backup []*p4rt.Switch
	Info   *p4rt.P4Info
	Static []control.ECN
	// Floor, with a floored policy, holds the agents to its base: Start
	// writes it, with the hosts' starting constants (AgentStart.HostBase)
	// as its Hosts, to the file FloorFile before the agents start, and
	// Command must pass that file to them. Static must then be its Base.
	Floor     *Floor
	FloorFile string
	Stderr    io.Writer // the agents' logs; nil: os.Stderr
	Log       *slog.Logger
}

// Processes runs one agent process per switch of a lab, and shadows them
// (Shadow): a controller.Agents.
type Processes struct {
	c      ProcessConfig
	shadow *Shadow
	cmds   []*exec.Cmd
	done   []chan struct{} // closed when agent i's process has been waited for

	mu       sync.Mutex
	stopping bool
	failed   int
	errs     []error
}

// NewProcesses returns the agents of c, not started.
func NewProcesses(c ProcessConfig) *Processes {
	if c.Stderr == nil {
		c.Stderr = os.Stderr
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return &Processes{c: c}
}

// ClockArgs are the flags that give an agent process the run's clock and
// schedule: the real instant of fabric time 0, the scale, the epoch and
// the interval (fabric ps).
func ClockArgs(start time.Time, scale float64, epoch, interval int64) []string {
	return []string{"--clock-start", strconv.FormatInt(start.UnixNano(), 10),
		"--clock-scale", strconv.FormatFloat(scale, 'g', -1, 64),
		"--epoch-ps", strconv.FormatInt(epoch, 10), "--interval-ps", strconv.FormatInt(interval, 10)}
}

// Start starts every switch's agent on s.Clock (which must have a Scale
// method, as hostgen.Clock) and returns their shadow, which puts the
// hosts' constants the leaves report in force through s.Hosts (a model
// with a host head).
func (p *Processes) Start(ctx context.Context, s controller.AgentStart) (controller.Fabric, error) {
	sc, ok := s.Clock.(interface{ Scale() float64 })
	if !ok {
		return nil, fmt.Errorf("agents: clock %T has no scale", s.Clock)
	}
	n := len(p.c.Plan.Switches)
	p.shadow = NewShadow(p.c.Plan.Fabric, n, s.Hosts, s.HostBase)
	if p.c.Static != nil {
		p.shadow.static = slices.Clone(p.c.Static)
	}
	if fl := p.c.Floor; fl != nil {
		fl := *fl
		if s.Hosts != nil {
			fl.Hosts = s.HostBase
		}
		if err := WriteFloor(p.c.FloorFile, &fl); err != nil {
			return p.shadow, err
		}
	}
	clockArgs := ClockArgs(s.Clock.At(0), sc.Scale(), s.Epoch, s.Interval)
	for i := range n {
		prog, args := p.c.Command(i)
		cmd := exec.Command(prog, append(args, clockArgs...)...)
		cmd.Stderr = p.c.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			return p.shadow, fmt.Errorf("agent of %s: %w", p.c.Plan.Switches[i].Name, err)
		}
		if err := cmd.Start(); err != nil {
			return p.shadow, fmt.Errorf("agent of %s: %w", p.c.Plan.Switches[i].Name, err)
		}
		p.cmds = append(p.cmds, cmd)
		done := make(chan struct{})
		p.done = append(p.done, done)
		go p.watch(ctx, i, cmd, out, done)
	}
	p.c.Log.Info("agents started", "processes", n)
	return p.shadow, nil
}

// watch feeds agent i's reports to the shadow until its process ends,
// waits for it, and if it ended before Stop, puts its switch's ports on
// the static settings through the controller's client.
func (p *Processes) watch(ctx context.Context, i int, cmd *exec.Cmd, out io.Reader, done chan struct{}) {
	defer close(done)
	name := p.c.Plan.Switches[i].Name
	ferr := p.shadow.Feed(ctx, i, out)
	werr := cmd.Wait()
	p.mu.Lock()
	stopping := p.stopping
	if ferr != nil {
		p.errs = append(p.errs, ferr)
	}
	if !stopping {
		p.failed++
	}
	p.mu.Unlock()
	if stopping {
		return
	}
	p.c.Log.Error("an agent ended mid-run: its switch goes back to the static settings (its hosts to the base DCQCN constants)", "switch", name, "exit", werr)
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	for _, f := range []struct {
		what string
		err  error
	}{
		{"its hosts on the base DCQCN constants", p.shadow.HostsToBase(hctx, i)},
		{"the switch on the static settings", p.takeOver(ctx, i)},
	} {
		if f.err != nil {
			p.c.Log.Error("could not put "+f.what, "switch", name, "error", f.err)
			p.mu.Lock()
			p.errs = append(p.errs, f.err)
			p.mu.Unlock()
		}
	}
}

// takeOver waits until the controller's client of switch i is primary
// again and writes the static settings of every port of the switch.
func (p *Processes) takeOver(ctx context.Context, i int) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StopTimeout)
	defer cancel()
	sw := p.c.Backup[i]
	if err := awaitPrimary(ctx, sw); err != nil {
		return err
	}
	entries, err := p4rt.ECNChanges(p.c.Info, p.c.Plan, i, nil, p.c.Static)
	if err != nil {
		return err
	}
	if err := sw.Write(ctx, p4rt.Updates(p4v1.Update_MODIFY, entries)...); err != nil {
		return err
	}
	p.c.Log.Warn("switch back on the static settings", "switch", sw.Name(), "entries", len(entries))
	return nil
}

// awaitPrimary waits until sw is its switch's primary client.
func awaitPrimary(ctx context.Context, sw *p4rt.Switch) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for !sw.Primary() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("switch %s: the controller's client is not primary again: %w", sw.Name(), ctx.Err())
		case <-sw.Done():
			return fmt.Errorf("switch %s: the controller's client: %w", sw.Name(), sw.Err())
		case <-t.C:
		}
	}
	return nil
}

// Stop ends every agent still running (SIGTERM, then SIGKILL after
// StopTimeout), waits until the controller's clients are primary again,
// and returns the agents' figures and any error of their reports or of a
// switch's return to the static settings.
func (p *Processes) Stop() (controller.AgentStats, error) {
	p.mu.Lock()
	p.stopping = true
	p.mu.Unlock()
	for i, cmd := range p.cmds {
		select {
		case <-p.done[i]:
			continue
		default:
		}
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done[i]:
		case <-time.After(StopTimeout):
			cmd.Process.Kill()
			<-p.done[i]
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), StopTimeout)
	defer cancel()
	for _, sw := range p.c.Backup {
		if err := awaitPrimary(ctx, sw); err != nil {
			p.errs = append(p.errs, err)
		}
	}
	var st controller.AgentStats
	if p.shadow != nil {
		st = p.shadow.Stats()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	st.Processes, st.Failed = len(p.cmds), p.failed
	return st, errors.Join(p.errs...)
}

var _ controller.Agents = (*Processes)(nil)
