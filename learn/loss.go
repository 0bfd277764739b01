package learn

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
