package learn

import (
	"math"
	"testing"
)

func TestAdamQuadratic(t *testing.T) {
	// f(θ) = Σ a_i (θ_i - c_i)², an ill-conditioned bowl.
	a := []float64{1, 10, 100, 0.1}
	c := []float64{3, -2, 0.5, 1}
	for _, tc := range []struct {
		name  string
		decay float64
		tol   float64
	}{
		{"plain", 0, 1e-3},
		{"weight-decay", 1e-4, 1e-2}, // decay pulls θ slightly towards 0
	} {
		t.Run(tc.name, func(t *testing.T) {
			theta := make([]float64, len(a))
			grad := make([]float64, len(a))
			opt := NewAdam(len(theta), 0.05)
			opt.WeightDecay = tc.decay
			f := func() float64 {
				s := 0.0
				for i := range a {
					s += a[i] * (theta[i] - c[i]) * (theta[i] - c[i])
				}
				return s
			}
			f0 := f()
			for range 3000 {
				for i := range a {
					grad[i] = 2 * a[i] * (theta[i] - c[i])
				}
				opt.Step(theta, grad)
			}
			if opt.Steps() != 3000 {
				t.Fatalf("Steps() = %d", opt.Steps())
			}
			for i := range c {
				if math.Abs(theta[i]-c[i]) > tc.tol {
					t.Errorf("θ[%d] = %g, want %g ± %g", i, theta[i], c[i], tc.tol)
				}
			}
			t.Logf("f: %.3g → %.3g", f0, f())
		})
	}
}

func TestAdamFirstStep(t *testing.T) {
	// With bias correction the first step is lr·sign(g) (up to eps).
	theta := []float64{0, 0, 0}
	opt := NewAdam(3, 0.01)
	opt.Step(theta, []float64{5, -0.001, 0})
	want := []float64{-0.01, 0.01, 0}
	for i := range want {
		if math.Abs(theta[i]-want[i]) > 1e-6 {
			t.Errorf("θ[%d] = %g after one step, want %g", i, theta[i], want[i])
		}
	}
	g := []float64{1, 2, 3}
	if a := testing.AllocsPerRun(10, func() { opt.Step(theta, g) }); a != 0 {
		t.Errorf("Step allocates %v times", a)
	}
	opt.Reset()
	if opt.Steps() != 0 {
		t.Fatal("Reset kept the step count")
	}
	nnExpectPanic(t, "Adam gradient has length 2, want 3", func() { opt.Step(theta, []float64{1, 2}) })
}

func TestClipNorm(t *testing.T) {
	for _, tc := range []struct {
		name     string
		g        []float64
		max      float64
		norm     float64
		clipped  []float64
		unscaled bool
	}{
		{"under", []float64{3, 4}, 10, 5, []float64{3, 4}, true},
		{"equal", []float64{3, 4}, 5, 5, []float64{3, 4}, true},
		{"over", []float64{3, 4}, 1, 5, []float64{0.6, 0.8}, false},
		{"disabled", []float64{3, 4}, 0, 5, []float64{3, 4}, true},
		{"inf", []float64{3, 4}, math.Inf(1), 5, []float64{3, 4}, true},
		{"zero", []float64{0, 0}, 1, 0, []float64{0, 0}, true},
		{"empty", nil, 1, 0, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := append([]float64(nil), tc.g...)
			if n := ClipNorm(g, tc.max); n != tc.norm {
				t.Errorf("norm %g, want %g", n, tc.norm)
			}
			for i := range g {
				if math.Abs(g[i]-tc.clipped[i]) > 1e-15 {
					t.Errorf("g[%d] = %g, want %g", i, g[i], tc.clipped[i])
				}
			}
		})
	}
}
