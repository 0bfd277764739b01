package lab

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// DefaultRunDir holds the lab directories by default: on tmpfs, cleared
// at reboot like the namespaces the labs describe.
const DefaultRunDir = "/run/graphcc"

// DefaultScale is the testbed's default scale factor: rates are divided
// and times multiplied by it (a 25 Gbps link becomes 2.5 Mbps, about 300
// full packets a second, and Δt = 100 µs becomes 1 s). BMv2's egress rate
// limiter delivered at most about 1,000 packets a second per queue on the
// 2-core machine the testbed was measured on, and a switch traversal took
// 0.5 to 5 ms: at scale 1000 a lone 25 Gbps flow reached a third of its
// rate and BMv2's latency tripled the base RTT, while at 10,000 a lone
// 1 MB flow finishes in its standalone time (docs/testbed.md).
const DefaultScale = 10000

// downTimeout bounds the teardown Up runs when it fails.
const downTimeout = 30 * time.Second

// DefaultDir returns the default directory of lab: DefaultRunDir/<lab>.
func DefaultDir(lab string) string { return filepath.Join(DefaultRunDir, lab) }

// Config describes a lab for Up. The zero value of every field but
// Plan is usable.
type Config struct {
	// Plan is the fabric's layout (NewPlan): its lab name, namespaces,
	// ports and addresses. Required.
	Plan *Plan
	// Dir is the lab directory (state file, switch logs); empty means
	// DefaultDir(Plan.Lab).
	Dir string
	// NoSwitches builds namespaces, links and addresses only.
	NoSwitches bool
	// SwitchBinary and CLIBinary are BMv2's switch and Thrift CLI, names
	// looked up on PATH or paths; empty means DefaultSwitchBinary and
	// DefaultCLIBinary.
	SwitchBinary, CLIBinary string
	// PipelineJSON is the compiled BMv2 program, given to the Thrift CLI
	// with --json. Empty: a stub with no objects (the switches start with
	// --no-p4 and the CLI only sets queues).
	PipelineJSON string
	// SwitchLogLevel turns BMv2's logging on at this level ("info",
	// "debug", …), into the switch's log file; empty means off (BMv2 runs
	// much slower when it logs).
	SwitchLogLevel string
	// Scale divides every link rate for the switches' egress queues;
	// 0 means DefaultScale.
	Scale int64
	// QueueDepth is every egress queue's depth in packets; 0 means
	// QueueDepth(rate, MaxKMax(rate)) per port.
	QueueDepth int64
	// MaxKMax returns the largest kmax, bytes, that a policy run on the lab
	// may set on a port of rate bps, for the queue depths (QueueDepth).
	// nil means none above the static Alibaba setting's.
	MaxKMax func(rate int64) int64
	// StartTimeout bounds the wait for every switch's gRPC port; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// StopGrace is how long Down waits between SIGTERM and SIGKILL; 0
	// means DefaultStopGrace. It is recorded in the state file.
	StopGrace time.Duration
	// Realtime, if not 0, is the SCHED_FIFO priority (1 to MaxRealtime)
	// Up puts every thread of every switch at once they listen
	// (ApplyRealtime); it is recorded in the state file. 0 leaves them at
	// normal scheduling.
	Realtime int
	// Logger receives progress; nil means slog.Default().
	Logger *slog.Logger

	// hook, if set, runs before each step ("netns <name>", "link <name>",
	// "host <name>", "switch <name>", "queues <name>"); an error fails Up
	// there. For tests.
	hook func(step string) error
}

// Lab is a testbed lab: the namespaces, links and switch processes of one
// fabric, as its state file records them. A Lab from Up also knows the
// switch processes it started; one from Load knows them by PID.
type Lab struct {
	dir   string
	plan  *Plan // nil for a lab from Load
	state *State
	base  *slog.Logger // the configured logger
	log   *slog.Logger // base with the lab's name

	mu       sync.Mutex
	children map[int]*child // by switch index: processes this process started
}

// Dir returns the lab's directory.
func (l *Lab) Dir() string { return l.dir }

// Name returns the lab's name.
func (l *Lab) Name() string { return l.state.Lab }

// Plan returns the plan the lab was built from, or nil for a lab from
// Load (use Check to match a plan against it).
func (l *Lab) Plan() *Plan { return l.plan }

// State returns the lab's recorded state. The caller must not modify it.
func (l *Lab) State() *State { return l.state }

// Up builds the lab cfg describes. It validates first and refuses a lab
// whose state file or namespaces exist (run Down first). It then records
// each resource in the state file before it creates it: a namespace per
// switch and host, a veth pair per link, host addresses and neighbours,
// and, unless cfg.NoSwitches, one simple_switch_grpc per switch inside
// its namespace, waits for their gRPC ports and sets their egress queues.
// If any step fails, Up removes everything with Down and returns both
// errors. On success the switches keep running after this process exits.
func Up(ctx context.Context, cfg Config) (*Lab, error) {
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	lab := cfg.Plan.Lab
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("lab %s: %w", lab, err)
	}
	unlock, err := lockDir(cfg.Dir)
	if err != nil {
		return nil, fmt.Errorf("lab %s: %w", lab, err)
	}
	defer unlock()
	if err := checkFree(lab, cfg.Dir); err != nil {
		return nil, err
	}
	l := &Lab{
		dir:      cfg.Dir,
		plan:     cfg.Plan,
		base:     cfg.Logger,
		log:      cfg.Logger.With("lab", lab),
		children: map[int]*child{},
		state: &State{
			Version: stateVersion, Lab: lab, Phase: PhaseCreating, Created: time.Now().UTC(),
			Scale: cfg.Scale, StopGraceNS: int64(cfg.StopGrace), Realtime: cfg.Realtime,
		},
	}
	if !cfg.NoSwitches {
		l.state.SwitchBinary, l.state.CLIBinary, l.state.CLIJSON = cfg.SwitchBinary, cfg.CLIBinary, cfg.PipelineJSON
	}
	start := time.Now()
	if err := l.build(ctx, &cfg); err != nil {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), downTimeout)
		defer cancel()
		derr := down(dctx, lab, cfg.Dir, cfg.Logger)
		if derr == nil {
			derr = l.waitChildren(dctx)
		}
		if derr != nil {
			derr = fmt.Errorf("lab %s: clean up after failed up: %w", lab, derr)
		}
		return nil, errors.Join(fmt.Errorf("lab %s: up: %w", lab, err), derr)
	}
	l.log.Info("lab up", "namespaces", len(l.state.Namespaces), "links", len(l.state.Links),
		"switches", len(l.state.Switches), "took", time.Since(start).Round(time.Millisecond))
	return l, nil
}

// resolve validates c and fills in its defaults.
func (c *Config) resolve() error {
	p := c.Plan
	if p == nil || p.Fabric == nil {
		return errors.New("lab: no plan")
	}
	if !validLabName(p.Lab) {
		return fmt.Errorf("lab %q: invalid name", p.Lab)
	}
	if c.Dir == "" {
		c.Dir = DefaultDir(p.Lab)
	}
	if c.Scale == 0 {
		c.Scale = DefaultScale
	}
	if c.StartTimeout == 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.StopGrace == 0 {
		c.StopGrace = DefaultStopGrace
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	switch {
	case c.Scale < 1:
		return fmt.Errorf("lab %s: scale %d is below 1", p.Lab, c.Scale)
	case c.QueueDepth < 0:
		return fmt.Errorf("lab %s: queue depth %d is negative", p.Lab, c.QueueDepth)
	case c.StartTimeout < 0:
		return fmt.Errorf("lab %s: start timeout %v is negative", p.Lab, c.StartTimeout)
	case c.StopGrace < 0 || c.StopGrace > maxStopGrace:
		return fmt.Errorf("lab %s: stop grace %v is outside [0, %v]", p.Lab, c.StopGrace, maxStopGrace)
	case c.Realtime != 0 && c.NoSwitches:
		return fmt.Errorf("lab %s: a real-time priority needs switches", p.Lab)
	}
	if err := CheckRealtime(c.Realtime); err != nil {
		return fmt.Errorf("lab %s: %w", p.Lab, err)
	}
	if len(p.Fabric.Links) > 999999 {
		return fmt.Errorf("lab %s: %d links, at most 999999", p.Lab, len(p.Fabric.Links))
	}
	for _, ns := range p.Namespaces() {
		if !labNetns(p.Lab, ns) {
			return fmt.Errorf("lab %s: namespace %q: node names must be non-empty, without '-' or spaces", p.Lab, ns)
		}
	}
	for _, sw := range p.Switches {
		for _, pp := range sw.Ports {
			if !validIface(pp.Iface) {
				return fmt.Errorf("lab %s: switch %s: interface name %q is invalid", p.Lab, sw.Name, pp.Iface)
			}
		}
	}
	if c.NoSwitches {
		return nil
	}
	var err error
	if c.SwitchBinary, err = lookBinary(c.SwitchBinary, DefaultSwitchBinary); err != nil {
		return fmt.Errorf("lab %s: %w", p.Lab, err)
	}
	if c.CLIBinary, err = lookBinary(c.CLIBinary, DefaultCLIBinary); err != nil {
		return fmt.Errorf("lab %s: %w", p.Lab, err)
	}
	if c.PipelineJSON != "" {
		abs, err := filepath.Abs(c.PipelineJSON)
		if err != nil {
			return fmt.Errorf("lab %s: pipeline JSON: %w", p.Lab, err)
		}
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("lab %s: pipeline JSON: %w", p.Lab, err)
		}
		c.PipelineJSON = abs
	}
	return nil
}

// lookBinary returns the absolute path of the program name (def if
// empty), looked up on PATH unless it holds a '/'.
func lookBinary(name, def string) (string, error) {
	if name == "" {
		name = def
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	return filepath.Abs(path)
}

// checkFree refuses a lab that has a state file or any namespace: live,
// or left over from a crash, it must be taken down first.
func checkFree(lab, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, StateFile)); err == nil {
		return fmt.Errorf("lab %s exists (%s): run down first", lab, filepath.Join(dir, StateFile))
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("lab %s: %w", lab, err)
	}
	ns, err := scanNetns(lab)
	if err != nil {
		return fmt.Errorf("lab %s: %w", lab, err)
	}
	if len(ns) > 0 {
		return fmt.Errorf("lab %s has namespaces (%s): run down first", lab, strings.Join(ns, ", "))
	}
	return nil
}

// save writes the lab's state file.
func (l *Lab) save() error { return writeState(l.dir, l.state) }

// build creates every resource, recording each before creating it.
func (l *Lab) build(ctx context.Context, cfg *Config) error {
	if err := l.save(); err != nil {
		return err
	}
	handles := map[string]netns.NsHandle{}
	defer func() {
		for _, h := range handles {
			h.Close()
		}
	}()
	if err := l.buildNetwork(ctx, cfg, handles); err != nil {
		return err
	}
	if !cfg.NoSwitches {
		if err := l.startSwitches(ctx, cfg, handles); err != nil {
			return err
		}
	}
	l.state.Phase = PhaseUp
	return l.save()
}

// step runs the test hook, if any, and checks ctx.
func step(ctx context.Context, cfg *Config, name string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if cfg.hook != nil {
		return cfg.hook(name)
	}
	return nil
}

// lockDir takes an exclusive flock on dir, so that Up and Down of one lab
// never run at once; it fails at once if another process holds it.
func lockDir(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s: another up or down of this lab is running", dir)
		}
		return nil, fmt.Errorf("lock %s: %w", dir, err)
	}
	return func() { f.Close() }, nil
}
