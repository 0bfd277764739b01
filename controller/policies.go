package controller

import (
	"context"
	"log/slog"
	"time"

	"graphcc/control"
	"graphcc/hostgen"
	"graphcc/topo"
)

// A PolicyRun is one policy of RunPolicies: its name, and New, which makes
// a fresh instance of it for fabric f with the settings every port starts
// from (nil: control.StaticSettings).
type PolicyRun struct {
	Name string
	New  func(f *topo.Fabric) (control.Policy, []control.ECN, error)
}

// PoliciesConfig configures RunPolicies: one trace of flows under several
// policies, one after another, on one lab.
type PoliciesConfig struct {
	// Workload is what every run shares (Plan, Runtime, Flows, Scale,
	// Interval, Drain, Host, Trace, OnStep); RunPolicies sets Policy,
	// Static and QPBase for each run.
	Workload WorkloadConfig
	// Reset starts each run afresh with the settings static on every
	// port: it pushes the pipeline again, so that the counters restart,
	// and sets the lab's queues again (lab.Lab.SetQueues).
	Reset func(ctx context.Context, static []control.ECN) error
	// DrainWait is how long a run waits after one that stopped with flows
	// still sending, for the switches' queues to empty
	// (lab.QueueDrainTime).
	DrainWait time.Duration
	Policies  []PolicyRun
	// Log, if set, is told what runs and what waits.
	Log *slog.Logger
	// Run, if set, runs each prepared workload in place of RunWorkload,
	// which it calls: a caller sets the run's Trace or OnStep there, and
	// writes out or prints each result as its run ends. name is the
	// policy's.
	Run func(ctx context.Context, name string, c WorkloadConfig) (*WorkloadResult, error)
}

// RunPolicies runs c.Workload's flows under each policy of c.Policies in
// turn and returns their results, in order. Each run starts from a fresh
// pipeline with the policy's starting settings; its flows take queue pairs
// of their own (WorkloadConfig.QPBase), disjoint from the run before, so
// that frames a switch still holds from it are foreign to this one; and a
// run that follows one that stopped with flows still sending first waits
// DrainWait, until the switches' queues have emptied. Errors of
// New, Reset and Run come back as they are, with the results so far.
func RunPolicies(ctx context.Context, c PoliciesConfig) ([]*WorkloadResult, error) {
	log := c.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	run := c.Run
	if run == nil {
		run = func(ctx context.Context, _ string, w WorkloadConfig) (*WorkloadResult, error) {
			return RunWorkload(ctx, w)
		}
	}
	f := c.Workload.Plan.Fabric
	flows := len(c.Workload.Flows)
	var results []*WorkloadResult
	var qpBase uint32
	for i, p := range c.Policies {
		if i > 0 && results[i-1].Summary.Incomplete > 0 {
			// the last run stopped with flows still sending: let the
			// switches' queues empty before this one starts
			log.Info("waiting for the switch queues to empty", "after", c.Policies[i-1].Name, "wait", c.DrainWait)
			if err := sleepCtx(ctx, c.DrainWait); err != nil {
				return results, err
			}
		}
		if uint64(qpBase)+uint64(flows) > hostgen.MaxFlows {
			qpBase = 0
		}
		pol, static, err := p.New(f)
		if err != nil {
			return results, err
		}
		if static == nil {
			static = control.StaticSettings(f)
		}
		if err := c.Reset(ctx, static); err != nil {
			return results, err
		}
		log.Info("running", "policy", p.Name, "flows", flows)
		w := c.Workload
		w.Policy, w.Static, w.QPBase = pol, static, qpBase
		qpBase += uint32(flows)
		res, err := run(ctx, p.Name, w)
		if err != nil {
			return results, err
		}
		results = append(results, res)
	}
	return results, nil
}

// sleepCtx waits d, or until ctx ends (then it returns ctx's cause).
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
