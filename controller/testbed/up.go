package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"graphcc/control"
	"graphcc/controller"
	"graphcc/controller/lab"
	"graphcc/controller/p4rt"
	"graphcc/gnn"
	"graphcc/scenario"
	"graphcc/topo"
)

// electionID is the P4Runtime election id of Up and Run (one controller
// at a time drives a lab).
const electionID = 1

// UpConfig configures Up: the lab, the fabric it is built from, and its
// switches.
type UpConfig struct {
	// Lab names the lab (lab.NewPlan); Dir is its directory, "" for
	// lab.DefaultDir(Lab).
	Lab, Dir string
	// Scenario is the fabric's scenario, without traffic, and Fabric its
	// fabric at the seed it was built with (scenario.Scenario.Fabric),
	// failed links and all. With TopologyFile (the file Scenario's
	// Topology was read from) the lab's spec records the file rather than
	// Scenario's Clos.
	Scenario     scenario.Scenario
	Fabric       *topo.Fabric
	TopologyFile string
	// Buffer is every switch's shared buffer, bytes.
	Buffer int64
	// Scale divides every link rate, and multiplies every time, of the
	// fabric on the lab; at least 1 (lab.DefaultScale).
	Scale    int64
	Pipeline Pipeline
	// NoSwitches builds namespaces, links and addresses only (no BMv2).
	NoSwitches bool
	// SwitchLogLevel turns BMv2's logging on at this level; "" off.
	SwitchLogLevel string
	// Realtime, if positive, is the SCHED_FIFO priority of every switch
	// thread (lab.Config.Realtime): it needs switches and root.
	Realtime int
	Log      *slog.Logger
}

// Check checks what of c can be checked before the fabric is built: the
// scale and the real-time priority (CheckRealtime).
func (c *UpConfig) Check() error {
	if c.Scale < 1 {
		return fmt.Errorf("--scale %d: must be at least 1", c.Scale)
	}
	return CheckRealtime(c.Realtime, c.NoSwitches)
}

// CheckRealtime checks a real-time priority prio of the switch threads
// (testbed up --realtime; 0 for normal scheduling) before anything is
// built: a SCHED_FIFO priority needs switches and root.
func CheckRealtime(prio int, noSwitches bool) error {
	if prio == 0 {
		return nil
	}
	if err := lab.CheckRealtime(prio); err != nil {
		return fmt.Errorf("--realtime %d: %w", prio, err)
	}
	if noSwitches {
		return fmt.Errorf("--realtime %d: with --no-switches there are no switch threads to schedule", prio)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("--realtime %d: real-time scheduling needs root (CAP_SYS_NICE); run testbed up as root", prio)
	}
	return nil
}

// Up builds the lab of c (lab.Up) and records its spec (lab.WriteSpec);
// with switches it then pushes the pipeline with the static settings to
// them, sets their queues again and puts their threads at c.Realtime. If
// anything after lab.Up fails, it takes the lab down again.
func Up(ctx context.Context, c UpConfig) (*lab.Lab, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	spec, err := c.spec()
	if err != nil {
		return nil, err
	}
	plan, err := lab.NewPlan(c.Lab, c.Fabric)
	if err != nil {
		return nil, fmt.Errorf("--lab: %w", err)
	}
	var info *p4rt.P4Info
	var devcfg []byte
	var jsonPath string
	if !c.NoSwitches {
		if info, devcfg, err = c.Pipeline.Load(); err != nil {
			return nil, err
		}
		if jsonPath, err = c.Pipeline.jsonFile(labDir(c.Lab, c.Dir), devcfg); err != nil {
			return nil, err
		}
	}
	lb, err := lab.Up(ctx, lab.Config{
		Plan: plan, Dir: c.Dir, NoSwitches: c.NoSwitches, PipelineJSON: jsonPath,
		SwitchLogLevel: c.SwitchLogLevel, Scale: c.Scale, MaxKMax: gnn.MaxKMax, Realtime: c.Realtime, Logger: c.Log,
	})
	if err != nil {
		if c.Realtime > 0 && errors.Is(err, unix.EPERM) {
			err = fmt.Errorf("--realtime %d: %w", c.Realtime, err)
		}
		return nil, err
	}
	// From here a failure takes the lab down again.
	fail := func(err error) (*lab.Lab, error) {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if derr := lb.Down(dctx); derr != nil {
			err = errors.Join(err, fmt.Errorf("take the lab down: %w", derr))
		}
		return nil, err
	}
	if err := lab.WriteSpec(lb.Dir(), spec); err != nil {
		return fail(err)
	}
	if !c.NoSwitches {
		if err := c.program(ctx, lb, plan, info, devcfg); err != nil {
			return fail(err)
		}
	}
	return lb, nil
}

// spec returns the lab's spec: the scale, the buffer, the Clos or the
// topology file's text, and the links failed in Fabric.
func (c *UpConfig) spec() (*lab.Spec, error) {
	spec := &lab.Spec{Scale: c.Scale, Clos: &c.Scenario.Clos, Buffer: c.Buffer}
	if c.TopologyFile != "" {
		b, err := os.ReadFile(c.TopologyFile)
		if err != nil {
			return nil, fmt.Errorf("--topo: %w", err)
		}
		spec.Clos, spec.Topology = nil, string(b)
	}
	base, err := c.Scenario.BaseFabric()
	if err != nil {
		return nil, err
	}
	spec.Failed = lab.FailedLinks(base, c.Fabric)
	return spec, nil
}

// program pushes the pipeline with the static settings to the switches of
// a lab just up, sets their queues again (the push may reset them), and
// puts any thread the push made at the lab's real-time priority.
func (c *UpConfig) program(ctx context.Context, lb *lab.Lab, plan *lab.Plan, info *p4rt.P4Info, devcfg []byte) error {
	rt, closeAll, err := p4rt.Connect(ctx, lb, plan, info, electionID)
	if err != nil {
		return err
	}
	err = rt.Program(ctx, devcfg, control.StaticSettings(plan.Fabric))
	closeAll()
	if err != nil {
		return err
	}
	if err := lb.SetQueues(ctx); err != nil {
		return err
	}
	if _, err := lb.ApplyRealtime(); err != nil {
		return fmt.Errorf("--realtime %d: %w", c.Realtime, err)
	}
	return nil
}

// Down takes the lab name in dir ("" for lab.DefaultDir) down
// (lab.DownLogger: also after a crash; a second time is harmless) and
// removes the files Up and Session.Run keep beside its state: the spec
// (lab.SpecFile) and the last control step (controller.LastStepFile).
func Down(ctx context.Context, name, dir string, log *slog.Logger) error {
	if err := lab.DownLogger(ctx, name, dir, log); err != nil {
		return err
	}
	d := labDir(name, dir)
	os.Remove(filepath.Join(d, lab.SpecFile))
	os.Remove(filepath.Join(d, controller.LastStepFile))
	return nil
}

// labDir is the directory of lab name: dir, or by default
// lab.DefaultDir(name).
func labDir(name, dir string) string {
	if dir != "" {
		return dir
	}
	return lab.DefaultDir(name)
}

// SetFabric sets c's Scenario and Fabric (scenario.Settings.Fabric, at
// s.Seed), TopologyFile and Buffer from the fabric settings s, errors
// naming them with prefix.
func (c *UpConfig) SetFabric(s scenario.Settings, prefix string) error {
	var err error
	if c.Scenario, c.Fabric, err = s.Fabric("sim", prefix); err != nil {
		return err
	}
	c.TopologyFile = s.Topology
	c.Buffer, err = s.Clos.BufferBytes(prefix)
	return err
}

// WriteUp says on w that the lab name in dir, built of c, came up in
// wall: its fabric, its scale and its switch threads' scheduling.
func (c *UpConfig) WriteUp(w io.Writer, name, dir string, wall time.Duration) error {
	sched := ""
	if c.Realtime > 0 {
		sched = fmt.Sprintf("; switch threads at SCHED_FIFO %d", c.Realtime)
	}
	_, err := fmt.Fprintf(w, "lab %s up in %.1f s: %s; rates and times scaled by %d%s; state in %s\n",
		name, wall.Seconds(), c.Scenario.DescribeFabric(c.Fabric), c.Scale, sched, dir)
	return err
}
