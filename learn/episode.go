package learn

import (
	"context"
	"fmt"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/replay"
	"graphcc/topo"
	"graphcc/trace"
)

type stepRecord struct {
	fabric     string // the tag of the episode's fabric: fabricVariant.key
	prev, next []float64
	actions    []int
	rewards    []float64
}

type episodeOut struct {
	variant     *fabricVariant // nil on the reference fabric
	steps       []stepRecord
	slowdownSum float64
	finished    int
	err         error
}

// runEpisode simulates one episode with the weights of net, exploring with
// epsilon, and returns its transitions in the layout of the reference
// fabric ref (Config.Fabric).
func runEpisode(ctx context.Context, c *Config, net qnet, seed uint64, eps float64, ref *topo.Fabric) (out episodeOut) {
	f, flows, err := c.Episode(seed)
	if err != nil {
		return episodeOut{err: err}
	}
	events, err := linkEvents(c.Events, seed, f)
	if err != nil {
		return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
	}
	v, err := variantOf(f, ref)
	if err != nil {
		return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
	}
	out.variant = v
	if v != nil && c.Hosts {
		return episodeOut{err: fmt.Errorf("seed %d: hosts as agents on a fabric with failed links: not supported", seed)}
	}
	er := newEpisodeReward(c, f)
	perPort := c.FeatureSet.Len()
	if _, ok := net.(*accNet); ok {
		perPort = gnn.ACCNumFeatures
	}
	record := func(prev []float64, actions []int, rewards []float64, next []float64) {
		er.set(rewards)
		if v != nil {
			out.steps = append(out.steps, v.remap(perPort, len(ref.Ports), len(ref.Agents()), prev, actions, rewards, next))
			return
		}
		out.steps = append(out.steps, stepRecord{
			prev: append([]float64(nil), prev...), next: append([]float64(nil), next...),
			actions: append([]int(nil), actions...), rewards: append([]float64(nil), rewards...),
		})
	}
	var pol control.Policy
	switch n := net.(type) {
	case *mpnnNet:
		g, err := gnn.NewGraphCC(n.m, f, c.Features)
		if err != nil {
			return episodeOut{err: err}
		}
		ex := NewExplorer(g, seed^0x65787074)
		ex.Epsilon, ex.Shape, ex.WeightQ, ex.OnStep = eps, c.Shape, c.WeightQ, record
		if c.Teacher != nil {
			if err := setTeacher(c, ex, f, seed); err != nil {
				return episodeOut{err: err}
			}
		}
		pol = ex
	case *accNet:
		acc, err := gnn.NewACCFrom(n.nets, n.ports, f, c.Features)
		if err != nil {
			return episodeOut{err: fmt.Errorf("seed %d: %w", seed, err)}
		}
		ex := newACCExplorer(acc, seed^0x65787074)
		ex.epsilon, ex.shape, ex.weightQ, ex.onStep = eps, c.Shape, c.WeightQ, record
		pol = ex
	}
	r, err := replay.RunContext(ctx, replay.Config{
		Fabric: f, Flows: flows, Params: c.Params, Seed: seed, Policy: pol,
		Interval: c.Interval, Until: trace.FirstStart(flows) + c.EpisodeTime, OnFinish: er.onFinish(), LinkEvents: events,
	})
	if err != nil {
		return episodeOut{err: err}
	}
	for _, rec := range r.FCT {
		out.slowdownSum += rec.Slowdown()
	}
	out.finished = len(r.FCT)
	return out
}

// setTeacher gives ex the teacher of the episode of seed on f
// (ImitateObjective).
func setTeacher(c *Config, ex *Explorer, f *topo.Fabric, seed uint64) error {
	p, initial, err := c.Teacher(f, seed)
	if err == nil {
		err = ex.SetTeacher(p, initial, c.HardwareHosts())
	}
	if err != nil {
		return fmt.Errorf("seed %d: teacher: %w", seed, err)
	}
	return nil
}

// linkEvents returns events(seed, f), or none if events is nil.
func linkEvents(events func(uint64, *topo.Fabric) ([]topo.LinkEvent, error), seed uint64, f *topo.Fabric) ([]topo.LinkEvent, error) {
	if events == nil {
		return nil, nil
	}
	return events(seed, f)
}

// hostAgents returns the host agents of f (Config.Hosts): its host
// NIC ports, the ports without topo.Graph.Agent, in increasing PortID, as
// a host head's workspace reads them out.
func hostAgents(f *topo.Fabric) []topo.PortID {
	var out []topo.PortID
	for p, ok := range f.Graph().Agent {
		if !ok {
			out = append(out, topo.PortID(p))
		}
	}
	return out
}

// episodeReward sets the rewards of the objectives that score the flows
// finishing in each interval, from the excess slowdowns (slowdown - 1) of
// the flows finished since the last transition: in all (FlowObjective),
// per port they crossed (PathObjective), per sender's NIC port (the host
// agents' reward, Config.Hosts).
type episodeReward struct {
	objective     Objective
	agents, hosts []topo.PortID // hosts only with Config.Hosts
	excess        float64
	portExcess    []float64 // PathObjective's, by port
	sentExcess    []float64 // the host agents', by the sender's NIC port
}

func newEpisodeReward(c *Config, f *topo.Fabric) *episodeReward {
	e := &episodeReward{objective: c.Objective, agents: f.Agents()}
	if c.Objective == PathObjective {
		e.portExcess = make([]float64, len(f.Ports))
	}
	if c.Hosts {
		e.hosts = hostAgents(f)
		e.sentExcess = make([]float64, len(f.Ports))
	}
	return e
}

// onFinish returns the simulator's hook that records a finished flow, nil
// if no reward needs it.
func (e *episodeReward) onFinish() func(trace.FCT, []topo.PortID) {
	if e.objective != FlowObjective && e.portExcess == nil && e.sentExcess == nil {
		return nil
	}
	return func(r trace.FCT, path []topo.PortID) {
		x := r.Slowdown() - 1
		e.excess += x
		if e.portExcess != nil {
			for _, p := range path {
				e.portExcess[p] += x
			}
		}
		if e.sentExcess != nil && len(path) > 0 {
			e.sentExcess[path[0]] += x // path[0] is the sender's NIC port
		}
	}
}

// set overwrites the rewards (the switch agents', then the host agents')
// of the objectives that score flows, and starts the next interval.
func (e *episodeReward) set(rewards []float64) {
	switch e.objective {
	case FlowObjective:
		for i := range e.agents {
			rewards[i] = -e.excess / FlowRewardScale
		}
	case PathObjective:
		for i, p := range e.agents {
			rewards[i] = -e.portExcess[p] / PathRewardScale
		}
		clear(e.portExcess)
	}
	e.excess = 0
	for j, p := range e.hosts {
		rewards[len(e.agents)+j] = -e.sentExcess[p] / PathRewardScale
	}
	clear(e.sentExcess)
}
