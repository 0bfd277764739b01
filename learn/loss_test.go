package learn

import (
	"math"
	"testing"
)

func TestHuber(t *testing.T) {
	for _, tc := range []struct{ e, loss, deriv float64 }{
		{0, 0, 0},
		{0.5, 0.125, 0.5},
		{-0.5, 0.125, -0.5},
		{1, 0.5, 1},
		{-1, 0.5, -1},
		{2, 1.5, 1},
		{-3, 2.5, -1},
		{1e6, 1e6 - 0.5, 1},
	} {
		if got := Huber(tc.e); got != tc.loss {
			t.Errorf("Huber(%g) = %g, want %g", tc.e, got, tc.loss)
		}
		if got := HuberDeriv(tc.e); got != tc.deriv {
			t.Errorf("HuberDeriv(%g) = %g, want %g", tc.e, got, tc.deriv)
		}
		// The derivative is the numerical one (away from nothing: Huber is C¹).
		const h = 1e-6
		if num := (Huber(tc.e+h) - Huber(tc.e-h)) / (2 * h); math.Abs(num-tc.deriv) > 1e-6*max(1, math.Abs(tc.e)) {
			t.Errorf("numerical derivative at %g is %g, want %g", tc.e, num, tc.deriv)
		}
	}
}

func TestHuberLoss(t *testing.T) {
	pred := []float64{0, 1, 5, -2}
	target := []float64{0.5, 1, 2, 0}
	// errors -0.5, 0, 3, -2 → 0.125, 0, 2.5, 1.5; mean 1.03125.
	d := make([]float64, 4)
	if got := huberLoss(d, pred, target); got != 1.03125 {
		t.Errorf("loss %g, want 1.03125", got)
	}
	want := []float64{-0.125, 0, 0.25, -0.25}
	for i := range want {
		if d[i] != want[i] {
			t.Errorf("d[%d] = %g, want %g", i, d[i], want[i])
		}
	}
	if got := huberLoss(nil, pred, target); got != 1.03125 {
		t.Errorf("loss without derivatives %g", got)
	}
	if huberLoss(nil, nil, nil) != 0 {
		t.Error("empty batch: non-zero loss")
	}
	nnExpectPanic(t, "Huber targets has length 3, want 4", func() { huberLoss(nil, pred, target[:3]) })
	nnExpectPanic(t, "Huber derivatives", func() { huberLoss(d[:1], pred, target) })
}

// huberLoss returns the mean Huber loss over the pairs (pred[i], target[i])
// and writes into dpred the derivative of that mean with respect to each
// prediction (dpred may be nil). It panics if the lengths differ.
func huberLoss(dpred, pred, target []float64) float64 {
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
