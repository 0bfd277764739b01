package report

import (
	"math"

	"graphcc/control"
	"graphcc/experiment"
	"graphcc/internal/testfabric"
	"graphcc/metrics"
	"graphcc/policy"
	"graphcc/scenario"
)

// tinyEval is a small evaluation of two policies on the tiny scenario at
// two seeds.
func tinyEval() experiment.Config {
	return experiment.Config{
		Scenarios: []scenario.Scenario{testfabric.TinyScenario()},
		Policies: []policy.Named{
			{Name: "static", New: policy.Static()},
			{Name: "low", New: policy.Fixed(control.ECN{KMin: 5 * control.KB, KMax: 20 * control.KB, PMax: 0.5})},
		},
		Seeds: []uint64{1, 2},
	}
}

// machineFree clears what measures the machine rather than the
// simulation, and sets the NaN ratios of bins without flows to -1, so
// that reflect.DeepEqual can compare reports (NaN equals nothing).
func machineFree(r *experiment.Report) *experiment.Report {
	for si := range r.Scenarios {
		for pi := range r.Scenarios[si].Policies {
			pr := &r.Scenarios[si].Policies[pi]
			for b := range pr.BinVsRef {
				for _, v := range []*metrics.Ratio{&pr.BinVsRef[b].P50, &pr.BinVsRef[b].P95, &pr.BinVsRef[b].P99} {
					if math.IsNaN(v.Value) {
						v.Value = -1
					}
				}
			}
			pr.Summary.WallSeconds, pr.Summary.PeakRSSBytes = 0, 0
			for k := range pr.PerSeed {
				pr.PerSeed[k].WallSeconds, pr.PerSeed[k].PeakRSSBytes = 0, 0
			}
		}
	}
	return r
}

// must returns v, and panics on err.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
