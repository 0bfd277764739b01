package gnn

import "math"

// HuberDelta is the point where the Huber loss turns from quadratic to
// linear.
const HuberDelta = 1.0

// Huber returns the Huber loss of the error e = prediction - target:
// e²/2 for |e| <= HuberDelta, HuberDelta*(|e| - HuberDelta/2) beyond.
func Huber(e float64) float64 {
	if a := math.Abs(e); a > HuberDelta {
		return HuberDelta * (a - HuberDelta/2)
	}
	return 0.5 * e * e
}

// HuberDeriv returns dHuber/de: e clamped to [-HuberDelta, HuberDelta].
func HuberDeriv(e float64) float64 {
	return max(-HuberDelta, min(HuberDelta, e))
}

// HuberLoss returns the mean Huber loss over the pairs (pred[i], target[i])
// and writes into dpred the derivative of that mean with respect to each
// prediction (dpred may be nil). It panics if the lengths differ.
func HuberLoss(dpred, pred, target []float64) float64 {
	checkLen("Huber targets", len(target), len(pred))
	if dpred != nil {
		checkLen("Huber derivatives", len(dpred), len(pred))
	}
	if len(pred) == 0 {
		return 0
	}
	inv := 1 / float64(len(pred))
	var sum float64
	for i, p := range pred {
		e := p - target[i]
		sum += Huber(e)
		if dpred != nil {
			dpred[i] = HuberDeriv(e) * inv
		}
	}
	return sum * inv
}
