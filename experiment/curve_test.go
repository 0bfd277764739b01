package experiment

import (
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"graphcc/learn"
)

// TestWriteCurvePNG: three panels (reward, loss, slowdown), a fourth when
// the run validated; a PNG that decodes.
func TestWriteCurvePNG(t *testing.T) {
	stats := []learn.EpisodeStats{
		{Episode: 1, MeanReward: 0.7, Loss: math.NaN(), Slowdown: 3, Validation: math.NaN()},
		{Episode: 2, MeanReward: 0.72, Loss: 0.1, Slowdown: 2.9, Validation: math.NaN()},
	}
	height := func(stats []learn.EpisodeStats) int {
		path := filepath.Join(t.TempDir(), "c.png")
		if err := WriteCurvePNG(path, stats); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		img, err := png.Decode(f)
		if err != nil {
			t.Fatal(err)
		}
		return img.Bounds().Dy()
	}
	three := height(stats)
	stats[1].Validation = 2.8
	if four := height(stats); four*3 != three*4 {
		t.Errorf("heights %d without validation, %d with: want 3 and 4 panels", three, four)
	}
}
