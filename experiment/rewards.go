package experiment

import (
	"fmt"
	"strconv"
	"strings"

	"graphcc/control"
	"graphcc/gnn"
	"graphcc/learn"
	"graphcc/topo"
)

// DefaultRewards is the reward an evaluation scores every run with unless
// told otherwise, as ParseRewards reads it: the one graphcc train uses by
// default ("convex:25").
func DefaultRewards() string {
	return fmt.Sprintf("%s:%d", learn.DefaultConfig().Shape, gnn.DefaultRewardQueueKB)
}

// ParseRewards reads a list of training rewards to score runs with:
// comma-separated SHAPE[:Q_KB] (linear, convex or concave; Q in KB at
// 25 Gbps, by default gnn.DefaultRewardQueueKB), each named SHAPE:Q. An
// empty list is no reward.
func ParseRewards(v string) ([]NamedReward, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []NamedReward
	seen := map[string]bool{}
	for _, spec := range strings.Split(v, ",") {
		spec = strings.TrimSpace(spec)
		name, qs, hasQ := strings.Cut(spec, ":")
		shape, err := learn.ParseRewardShape(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", spec, err)
		}
		q := float64(gnn.DefaultRewardQueueKB)
		if hasQ {
			q, err = strconv.ParseFloat(qs, 64)
			if err != nil || !(q > 0) || q > 1e9 {
				return nil, fmt.Errorf("%s: queue Q %q must be a number of KB in (0, 1e9]", spec, qs)
			}
		}
		n := shape.String() + ":" + strconv.FormatFloat(q, 'g', -1, 64)
		if seen[n] {
			return nil, fmt.Errorf("%s given twice", n)
		}
		seen[n] = true
		fc := gnn.FeatureConfig{RewardQueue: q * control.KB}
		out = append(out, NamedReward{Name: n, New: func(f *topo.Fabric) func(*control.Telemetry) float64 {
			return learn.NewRewardMeter(f, fc, shape, learn.DefaultWeightQ).Score
		}})
	}
	return out, nil
}
