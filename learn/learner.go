package learn

import (
	"math"
	"math/rand/v2"
	"sync"

	"graphcc/gnn"
)

// learner computes minibatch updates; it owns one scratch set per worker.
type learner struct {
	online, target qnet
	c              *Config
	workers        []*learnWorker
	grad           []float64
	agents, hosts  int // switch agents, then host agents (Config.Hosts), per transition
}

// qRow returns where agent v's Q values start in a transition's Q values
// and how many there are: the switch agents' rows of gnn.NumActions, then the
// host agents' of the host table's size (the model's QLen layout).
func (l *learner) qRow(v int) (int, int) {
	if v < l.agents {
		return v * gnn.NumActions, gnn.NumActions
	}
	ha := l.c.HostTable.Len()
	return l.agents*gnn.NumActions + (v-l.agents)*ha, ha
}

type learnWorker struct {
	on, onNext, tgt qscratch
	x, xn           []float64
	q, qn, qt, dq   []float64
	actions         []int
	rewards         []float64
	grad            []float64
	loss            float64
}

func newLearner(online, target qnet, c Config, stateLen, agents, hosts int) *learner {
	l := &learner{online: online, target: target, c: &c, grad: make([]float64, len(online.params())), agents: agents, hosts: hosts}
	for range c.Workers {
		qa := agents*gnn.NumActions + hosts*c.HostTable.Len()
		agents := agents + hosts
		l.workers = append(l.workers, &learnWorker{
			on: online.newScratch(), onNext: online.newScratch(), tgt: target.newScratch(),
			x: make([]float64, stateLen), xn: make([]float64, stateLen),
			q: make([]float64, qa), qn: make([]float64, qa), qt: make([]float64, qa), dq: make([]float64, qa),
			actions: make([]int, agents), rewards: make([]float64, agents),
			grad: make([]float64, len(online.params())),
		})
	}
	return l
}

// update does one minibatch step and returns its mean Huber loss, the mean
// over the agents that acted (an agent whose port had failed in that
// episode neither counts nor has a gradient). With host agents each head
// has its own double-DQN targets (the host agents' from the host head)
// and the loss is summed over both, every acting agent weighing the same.
func (l *learner) update(buf *ReplayBuffer, r *rand.Rand, adam *Adam) float64 {
	idx := buf.Sample(r, l.c.Batch, nil)
	agents := buf.Agents()
	acting := 0
	for _, i := range idx {
		acting += buf.Acting(i)
	}
	if acting == 0 {
		return 0
	}
	scale := 1 / float64(acting)
	var wg sync.WaitGroup
	for w, lw := range l.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			clear(lw.grad)
			lw.loss = 0
			for k := w; k < len(idx); k += len(l.workers) {
				i := idx[k]
				buf.Features(i, lw.x)
				buf.Actions(i, lw.actions)
				fab := buf.Fabric(i)
				if l.c.Objective == ImitateObjective {
					lw.on.forward(fab, lw.x, lw.q)
					lw.loss += l.imitate(lw, agents, scale)
				} else {
					buf.Rewards(i, lw.rewards)
					buf.NextFeatures(i, lw.xn)
					lw.onNext.forward(fab, lw.xn, lw.qn)
					lw.tgt.forward(fab, lw.xn, lw.qt)
					lw.on.forward(fab, lw.x, lw.q)
					lw.loss += l.tdError(lw, agents, scale)
				}
				lw.on.backward(fab, lw.dq, lw.grad)
			}
		}()
	}
	wg.Wait()
	clear(l.grad)
	var loss float64
	for _, lw := range l.workers {
		for j, g := range lw.grad {
			l.grad[j] += g
		}
		loss += lw.loss
	}
	ClipNorm(l.grad, l.c.MaxGradNorm)
	adam.Step(l.online.params(), l.grad)
	return loss * scale
}

// tdError sets lw.dq to the gradient of the Huber loss of the double-DQN
// targets of lw's transition (lw.q, lw.qn, lw.qt forwarded) over its
// acting agents, scaled, and returns the loss.
func (l *learner) tdError(lw *learnWorker, agents int, scale float64) float64 {
	clear(lw.dq)
	var loss float64
	for v := range agents {
		if lw.actions[v] == NoAction {
			continue // the agent's port had failed
		}
		row, n := l.qRow(v)
		best := argmax(lw.qn[row : row+n])
		y := lw.rewards[v] + l.c.Gamma*lw.qt[row+best]
		e := lw.q[row+lw.actions[v]] - y
		loss += Huber(e)
		lw.dq[row+lw.actions[v]] = HuberDeriv(e) * scale
	}
	return loss
}

// imitate sets lw.dq to the gradient of the softmax cross-entropy of every
// acting agent's outputs (lw.q forwarded) against its label, the action
// stored (ImitateObjective), scaled, and returns the loss.
func (l *learner) imitate(lw *learnWorker, agents int, scale float64) float64 {
	clear(lw.dq)
	var loss float64
	for v := range agents {
		if lw.actions[v] == NoAction {
			continue
		}
		row, n := l.qRow(v)
		q, dq := lw.q[row:row+n], lw.dq[row:row+n]
		m := q[argmax(q)]
		var z float64
		for a, qa := range q {
			dq[a] = math.Exp(qa - m)
			z += dq[a]
		}
		for a := range dq {
			dq[a] *= scale / z
		}
		dq[lw.actions[v]] -= scale
		loss += m + math.Log(z) - q[lw.actions[v]]
	}
	return loss
}

// argmax returns the index of the largest entry of q, the lowest on ties.
func argmax(q []float64) int {
	best := 0
	for a := 1; a < len(q); a++ {
		if q[a] > q[best] {
			best = a
		}
	}
	return best
}
