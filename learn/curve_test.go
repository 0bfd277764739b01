package learn

import (
	"math"
	"strings"
	"testing"
)

// TestWriteCurve writes two rounds, one before learning and one validated.
func TestWriteCurve(t *testing.T) {
	var b strings.Builder
	err := WriteCurve(&b, []EpisodeStats{
		{Episode: 2, Epsilon: 1, MeanReward: 0.5, Loss: math.NaN(), Slowdown: 3.25, Validation: math.NaN()},
		{Episode: 4, Epsilon: 0.5, MeanReward: 0.625, Loss: 0.125, Updates: 10, Slowdown: 2.5, Validation: 2.75},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := CurveHeader + "\n" +
		"2,1.0000,0.500000,NaN,0,3.2500,NaN\n" +
		"4,0.5000,0.625000,0.125000,10,2.5000,2.7500\n"
	if b.String() != want {
		t.Errorf("curve:\n%s\nwant:\n%s", b.String(), want)
	}
}
