package learn

import (
	"fmt"
	"math"
)

// Adam is the Adam optimizer (Kingma and Ba) over one flat parameter vector,
// with optional decoupled weight decay (AdamW). Build one with NewAdam, which
// sets the usual defaults; change the exported fields before the first Step.
type Adam struct {
	LR          float64 // learning rate
	Beta1       float64 // decay of the first moment, 0.9 by default
	Beta2       float64 // decay of the second moment, 0.999 by default
	Eps         float64 // added to sqrt(v̂), 1e-8 by default
	WeightDecay float64 // decoupled: each step also subtracts LR*WeightDecay*θ; 0 by default

	m, v []float64
	t    int
}

// NewAdam returns an optimizer for n parameters with learning rate lr and
// the default betas, epsilon and no weight decay.
func NewAdam(n int, lr float64) *Adam {
	if n < 0 {
		panic(fmt.Sprintf("learn: Adam over %d parameters", n))
	}
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8,
		m: make([]float64, n), v: make([]float64, n)}
}

// Steps returns how many steps a has taken.
func (a *Adam) Steps() int { return a.t }

// Reset forgets the moments and the step count.
func (a *Adam) Reset() {
	clear(a.m)
	clear(a.v)
	a.t = 0
}

// Step updates params with the gradient grad (both of the length a was
// built for). It does not allocate.
func (a *Adam) Step(params, grad []float64) {
	checkLen("Adam parameters", len(params), len(a.m))
	checkLen("Adam gradient", len(grad), len(a.m))
	a.t++
	b1, b2 := a.Beta1, a.Beta2
	c1 := 1 - math.Pow(b1, float64(a.t))
	c2 := 1 - math.Pow(b2, float64(a.t))
	step := a.LR / c1
	sc2 := 1 / math.Sqrt(c2)
	decay := a.LR * a.WeightDecay
	m, v := a.m[:len(params)], a.v[:len(params)]
	grad = grad[:len(params)]
	for i, g := range grad {
		m[i] = b1*m[i] + (1-b1)*g
		v[i] = b2*v[i] + (1-b2)*g*g
		params[i] -= step*m[i]/(math.Sqrt(v[i])*sc2+a.Eps) + decay*params[i]
	}
}

// ClipNorm scales grad in place so that its Euclidean norm is at most max
// and returns the norm it had before. A max that is not positive, or +Inf,
// leaves grad as it is. A NaN norm is returned without scaling.
func ClipNorm(grad []float64, max float64) (norm float64) {
	var s float64
	for _, g := range grad {
		s += g * g
	}
	norm = math.Sqrt(s)
	if max > 0 && norm > max && !math.IsInf(max, 1) {
		f := max / norm
		for i := range grad {
			grad[i] *= f
		}
	}
	return norm
}
