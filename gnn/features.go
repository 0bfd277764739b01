package gnn

import (
	"fmt"
	"math"
	"slices"

	"graphcc/control"
	"graphcc/topo"
)

// Feature layout of GraphCC. Every port has NumFeatures numbers, the port's
// utilization u, queue q and marking rate m at the last three control
// intervals, newest first:
//
//	[u_t, q_t, m_t, u_t-1, q_t-1, m_t-1, u_t-2, q_t-2, m_t-2]
//
// and Featurizer.Features holds ports × NumFeatures of them, row-major by
// topo.PortID (host ports included: they are neighbours in the agent graph).
// Each is normalized to about [0, 1]:
//
//   - u = control.PortSample.Utilization, clamped to [0, MaxUtilization];
//   - q = control.PortSample.QueueFeature / the port's queue scale, clamped
//     to [0, MaxQueue]; the queue scale is FeatureConfig.QueueScale (bytes at
//     ActionRefRate, default the largest kmax of the action table, 256 KB)
//     times rate/ActionRefRate, the same scaling as the actions;
//   - m = control.PortSample.MarkingRate, clamped to [0, 1].
//
// Before the first observation, and for the past steps the first two
// observations do not have, every feature is 0 (an idle port).
// (NumFeatures = FeatureSteps × FeaturesPerStep = 9 is declared with the
// network's shape in mpnn.go.) This is the paper's feature set,
// FeaturesPaper; FeaturesFlowMix appends the flow-mix features to each row
// (featureset.go).
const (
	FeatureSteps    = 3 // t, t-1, t-2
	FeaturesPerStep = 3 // u, q, m

	FeatU = 0 // offset of u in a step
	FeatQ = 1 // offset of q in a step
	FeatM = 2 // offset of m in a step
)

// Clamps of the normalized features.
const (
	MaxUtilization = 1.5 // u: a port may report a little above 1 (a packet finishing just after the interval began)
	MaxQueue       = 4.0 // q and the ACC thresholds, in queue scales
	MaxMarking     = 1.0 // m
)

// DefaultQueueScaleKB is the default queue scale: the largest kmax of the
// action table, KB at ActionRefRate.
const DefaultQueueScaleKB = 256

// DefaultRewardQueueKB is the default Q of the reward, in KB at
// ActionRefRate: about one hop's bandwidth-delay product of the GraphCC
// setup (27.5 KB). With Q = DefaultQueueScaleKB the queue term hardly
// changes over the queues the fabric sees (tens of KB) and the trained
// policy did no better than static DCQCN (docs/learning.md, "Reward").
const DefaultRewardQueueKB = 25

// FeatureConfig parameterizes the normalization of features and rewards.
// The zero value is the default.
type FeatureConfig struct {
	// QueueScale is the queue length, in bytes at ActionRefRate, that
	// normalizes to q = 1; a port of rate R uses QueueScale*R/ActionRefRate.
	// 0 means DefaultQueueScaleKB KB (256 000 bytes).
	QueueScale float64
	// RewardQueue is Q of the reward, in bytes at ActionRefRate, scaled per
	// port like QueueScale: the queue at which the latency term reaches 0.
	// 0 means DefaultRewardQueueKB KB.
	RewardQueue float64
}

// Validate reports whether c's scales, defaults filled in, are positive
// and finite.
func (c FeatureConfig) Validate() error {
	d := c.WithDefaults()
	if !(d.QueueScale > 0) || !(d.RewardQueue > 0) || math.IsInf(d.QueueScale, 0) || math.IsInf(d.RewardQueue, 0) {
		return fmt.Errorf("feature config %+v: scales must be positive and finite", c)
	}
	return nil
}

// WithDefaults returns c with its zero fields set to their defaults.
func (c FeatureConfig) WithDefaults() FeatureConfig {
	if c.QueueScale == 0 {
		c.QueueScale = float64(DefaultQueueScaleKB * control.KB)
	}
	if c.RewardQueue == 0 {
		c.RewardQueue = DefaultRewardQueueKB * control.KB
	}
	return c
}

// ACC state layout. ACC's per-port state is the queue length, the tx rate,
// the ECN-marked tx rate and the port's current ECN setting, at the last
// three control intervals, newest first; per step:
//
//	[q, u, m, kmin/scale, kmax/scale, pmax]
//
// so a row is ACCNumFeatures = 18 numbers:
//
//	[q_t, u_t, m_t, kmin_t, kmax_t, pmax_t, q_t-1, …, pmax_t-1, q_t-2, …, pmax_t-2]
//
// q, u and m are exactly the GraphCC features (same normalization and
// clamps; u is the tx rate and m the marked tx rate, both as a fraction of
// the port's rate). kmin and kmax are the thresholds of the setting in force
// during the interval divided by the port's queue scale, clamped to
// [0, MaxQueue]; pmax is as set. The setting of step t is the one passed to
// ACCFeatures (the settings the fabric hands Decide: those in force during
// the interval just observed); those of t-1 and t-2 are what ACCFeatures was
// given at the previous observations. Past steps not yet observed are 0.
const (
	ACCNumFeatures     = 18
	ACCFeaturesPerStep = 6

	ACCFeatQ    = 0
	ACCFeatU    = 1
	ACCFeatM    = 2
	ACCFeatKMin = 3
	ACCFeatKMax = 4
	ACCFeatPMax = 5
)

// FeatureLayoutID and ACCFeatureLayoutID identify the inputs a network was
// trained on: their order, their normalization and the queue feature's
// definition (control.PortSample.QueueFeature, the mean depth in data
// packets met at enqueue; "q3" is its third definition in this project's
// history). A model file records the one it was trained on, and Load
// refuses a file whose layout is not the one wanted (GraphCCExpect,
// ACCExpect), so that no network runs on inputs it never saw. Change the
// identifier whenever a feature's meaning changes.
const (
	FeatureLayoutID    = "graphcc-features/v1 q3 steps=t,t-1,t-2 step=u,q,m u/1.5 q=queue-feature/(256KB*rate/25G)/4 m/1"
	ACCFeatureLayoutID = "acc-state/v1 q3 steps=t,t-1,t-2 step=q,u,m,kmin,kmax,pmax q,kmin,kmax=bytes/(256KB*rate/25G)/4 u/1.5 m/1 pmax/1"
)

// Featurizer turns a fabric's telemetry into the GraphCC features of one
// feature set (and the ACC state) of every port, keeping the history of the
// last three intervals. It is sized once for one fabric; Observe does not
// allocate.
type Featurizer struct {
	c      FeatureConfig
	set    FeatureSet
	width  int // features per port: set.Len()
	ports  int
	rate   []int64   // per port, bps
	qScale []float64 // per port: queue scale in bytes
	rScale []float64 // per port: reward Q in bytes
	feat   []float64 // ports × width
	rawQ   []float64 // per port: QueueFeature bytes of the last observation
	rawU   []float64 // per port: unclamped utilization of the last observation
	ecn    []float64 // ports × FeatureSteps × 3: normalized kmin, kmax, pmax history
	obs    int       // observations since construction or Reset
}

// NewFeaturizer returns a Featurizer of the paper's features
// (FeaturesPaper) for the ports of f.
func NewFeaturizer(f *topo.Fabric, c FeatureConfig) *Featurizer {
	return NewFeaturizerSet(f, FeaturesPaper, c)
}

// NewFeaturizerSet returns a Featurizer of feature set set for the ports of
// f.
func NewFeaturizerSet(f *topo.Fabric, set FeatureSet, c FeatureConfig) *Featurizer {
	rates := make([]int64, len(f.Ports))
	for i, p := range f.Ports {
		rates[i] = p.Rate
	}
	return NewPortFeaturizer(rates, set, c)
}

// NewPortFeaturizer returns a Featurizer of feature set set for ports of
// the given rates (bps), row i of its Features being the port of rates[i]:
// a subset of a fabric's ports, such as one switch's (Agent). Each port's
// features depend on its own samples and rate only, so they are those a
// Featurizer of the whole fabric computes for the same port.
func NewPortFeaturizer(rates []int64, set FeatureSet, c FeatureConfig) *Featurizer {
	if !slices.Contains(FeatureSets(), set) {
		panic(fmt.Sprintf("gnn: featurizer of an unknown feature set, %v", set))
	}
	if err := c.Validate(); err != nil {
		panic("gnn: " + err.Error())
	}
	c = c.WithDefaults()
	n, w := len(rates), set.Len()
	z := &Featurizer{
		c:      c,
		set:    set,
		width:  w,
		ports:  n,
		rate:   make([]int64, n),
		qScale: make([]float64, n),
		rScale: make([]float64, n),
		feat:   make([]float64, n*w),
		rawQ:   make([]float64, n),
		rawU:   make([]float64, n),
		ecn:    make([]float64, n*FeatureSteps*3),
	}
	for i, r := range rates {
		s := rateScale(r)
		z.rate[i] = r
		z.qScale[i] = c.QueueScale * s
		z.rScale[i] = c.RewardQueue * s
	}
	return z
}

// Config returns the configuration in use, defaults filled in.
func (z *Featurizer) Config() FeatureConfig { return z.c }

// Ports returns the number of ports (rows of Features).
func (z *Featurizer) Ports() int { return z.ports }

// Set returns the feature set the Featurizer computes.
func (z *Featurizer) Set() FeatureSet { return z.set }

// Width returns the features per port (columns of Features): Set().Len().
func (z *Featurizer) Width() int { return z.width }

// Observations returns the number of Observe calls since construction or
// the last Reset.
func (z *Featurizer) Observations() int { return z.obs }

// QueueScale returns the queue scale of port p in bytes.
func (z *Featurizer) QueueScale(p topo.PortID) float64 { return z.qScale[p] }

// Rate returns the rate of port p (row p of Features) in bps.
func (z *Featurizer) Rate(p topo.PortID) int64 { return z.rate[p] }

// RewardInputs returns what the training reward reads of port p (row p of
// Features) at the last observation: its queue (control.PortSample.
// QueueFeature) as a fraction of its reward queue (FeatureConfig.
// RewardQueue at its rate), at most 1, and its utilization clamped to
// [0, 1]. Both are 0 before the first observation.
func (z *Featurizer) RewardInputs(p topo.PortID) (queue, util float64) {
	return min(z.rawQ[p]/z.rScale[p], 1), clamp(z.rawU[p], 1)
}

// Reset forgets the history: every feature is 0 again, as before the first
// observation.
func (z *Featurizer) Reset() {
	clear(z.feat)
	clear(z.rawQ)
	clear(z.rawU)
	clear(z.ecn)
	z.obs = 0
}

// clamp returns v limited to [0, hi]; NaN counts as 0.
func clamp(v, hi float64) float64 {
	switch {
	case v > hi:
		return hi
	case v > 0:
		return v
	}
	return 0 // also NaN
}

// Observe shifts the history by one interval (t becomes t-1, t-1 becomes
// t-2, t-2 is dropped) and computes the features of step t from t, which
// must cover every port of the fabric. A non-positive interval gives u = m =
// 0. It does not allocate.
func (z *Featurizer) Observe(t *control.Telemetry) {
	if len(t.Ports) != z.ports {
		panic(fmt.Sprintf("gnn: telemetry of %d ports for a featurizer of %d", len(t.Ports), z.ports))
	}
	dt, w := t.Interval, z.width
	for i := range t.Ports {
		s := &t.Ports[i]
		row := z.feat[i*w : (i+1)*w : (i+1)*w]
		shiftSteps(row[:NumFeatures], FeaturesPerStep)
		var u, m float64
		if dt > 0 {
			u = s.Utilization(z.rate[i], dt)
			m = s.MarkingRate(z.rate[i], dt)
		}
		q := s.QueueFeature()
		z.rawU[i], z.rawQ[i] = u, q
		row[FeatU] = clamp(u, MaxUtilization)
		row[FeatQ] = clamp(q/z.qScale[i], MaxQueue)
		row[FeatM] = clamp(m, MaxMarking)
		if z.set == FeaturesFlowMix {
			mix := row[NumFeatures:]
			shiftSteps(mix, FlowMixPerStep)
			start, queued, high := s.FlowMix()
			mix[FeatStart] = startFeature(start)
			mix[FeatQueued] = clamp(queued, 1)
			mix[FeatHigh] = clamp(high/z.qScale[i], MaxQueue)
		}

		e := z.ecn[i*FeatureSteps*3 : (i+1)*FeatureSteps*3 : (i+1)*FeatureSteps*3]
		copy(e[6:9], e[3:6])
		copy(e[3:6], e[0:3])
		// e[0:3] keeps the previous setting until ACCFeatures records the
		// current one: settings persist unless changed.
	}
	z.obs++
}

// shiftSteps moves the FeatureSteps steps of per numbers each in row one
// step older: t-1 to t-2, t to t-1 (t-2 is dropped, t is left to be
// overwritten).
func shiftSteps(row []float64, per int) {
	copy(row[2*per:3*per], row[per:2*per])
	copy(row[per:2*per], row[:per])
}

// Features returns the features of every port, ports × Width() row-major
// by topo.PortID (the layout of the Featurizer's set: above, and
// FeaturesFlowMix). The slice is the Featurizer's own: read it, do not keep
// it past the next Observe or Reset.
func (z *Featurizer) Features() []float64 { return z.feat }

// ACCFeatures writes the ACC state of every port into dst, ports ×
// ACCNumFeatures row-major by topo.PortID (layout above), and records ecn
// (indexed by topo.PortID) as the settings of step t. Call it once after
// each Observe with the settings that were in force during the observed
// interval (calling it again for the same observation replaces the record;
// a step for which it is not called keeps the previous step's settings).
// Before the first Observe it records nothing and writes zeros. It does not
// allocate.
func (z *Featurizer) ACCFeatures(dst []float64, ecn []control.ECN) {
	checkLen("ACC features", len(dst), z.ports*ACCNumFeatures)
	checkLen("ECN settings", len(ecn), z.ports)
	for i := range z.ports {
		e := z.ecn[i*FeatureSteps*3 : (i+1)*FeatureSteps*3 : (i+1)*FeatureSteps*3]
		if z.obs > 0 {
			e[0] = clamp(float64(ecn[i].KMin)/z.qScale[i], MaxQueue)
			e[1] = clamp(float64(ecn[i].KMax)/z.qScale[i], MaxQueue)
			e[2] = clamp(ecn[i].PMax, 1)
		}
		f := z.feat[i*z.width : i*z.width+NumFeatures : i*z.width+NumFeatures]
		d := dst[i*ACCNumFeatures : (i+1)*ACCNumFeatures : (i+1)*ACCNumFeatures]
		for s := range FeatureSteps {
			ds := d[s*ACCFeaturesPerStep : (s+1)*ACCFeaturesPerStep]
			fs := f[s*FeaturesPerStep : (s+1)*FeaturesPerStep]
			ds[ACCFeatQ] = fs[FeatQ]
			ds[ACCFeatU] = fs[FeatU]
			ds[ACCFeatM] = fs[FeatM]
			ds[ACCFeatKMin] = e[s*3]
			ds[ACCFeatKMax] = e[s*3+1]
			ds[ACCFeatPMax] = e[s*3+2]
		}
	}
}

// The feature layout must match the network's input width.
var _ = [1]struct{}{}[NumFeatures-FeatureSteps*FeaturesPerStep]
