package experiment

import (
	"io"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"graphcc/internal/fileio"
	"graphcc/learn"
)

// WriteCurvePNG draws a training run's curve into the PNG file path: mean
// reward, loss and the finished flows' mean slowdown against the episode,
// and the validation slowdown when the run validated (graphcc train
// --curve writes it beside the CSV).
func WriteCurvePNG(path string, stats []learn.EpisodeStats) error {
	series := []struct {
		title string
		y     func(learn.EpisodeStats) float64
	}{
		{"mean reward per agent and step", func(s learn.EpisodeStats) float64 { return s.MeanReward }},
		{"Huber loss", func(s learn.EpisodeStats) float64 { return s.Loss }},
		{"mean FCT slowdown of finished flows", func(s learn.EpisodeStats) float64 { return s.Slowdown }},
	}
	if slices.ContainsFunc(stats, func(s learn.EpisodeStats) bool { return !math.IsNaN(s.Validation) }) {
		series = append(series, struct {
			title string
			y     func(learn.EpisodeStats) float64
		}{"greedy policy's mean FCT slowdown on the validation seeds", func(s learn.EpisodeStats) float64 { return s.Validation }})
	}
	const w, h = 7 * vg.Inch, 2.5 * vg.Inch
	n := vg.Length(len(series))
	img := vgimg.NewWith(vgimg.UseWH(w, h*n), vgimg.UseDPI(110))
	dc := draw.New(img)
	for i, sr := range series {
		p := plot.New()
		p.Title.Text = sr.title
		p.X.Label.Text = "episode"
		var pts plotter.XYs
		for _, s := range stats {
			if y := sr.y(s); !math.IsNaN(y) {
				pts = append(pts, plotter.XY{X: float64(s.Episode), Y: y})
			}
		}
		if len(pts) > 0 {
			l, err := plotter.NewLine(pts)
			if err != nil {
				return err
			}
			p.Add(l)
		}
		// panel i from the top: crop the others away
		top := h * vg.Length(i)
		p.Draw(draw.Crop(dc, 0, 0, h*n-top-h, -top))
	}
	return fileio.WriteAtomic(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
}
