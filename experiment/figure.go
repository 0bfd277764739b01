package experiment

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/scenario"
)

// Figure geometry: four panels side by side under a strip with the title
// and the legend.
const (
	figWidth  = 17 * vg.Inch
	figHeight = 5.2 * vg.Inch
	figDPI    = 110
	figStrip  = 0.75 * vg.Inch
)

// policyColors are distinct, colour-blind-safe colours (Okabe-Ito), one per
// policy in report order; the palette repeats beyond them.
var policyColors = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{213, 94, 0, 255},    // vermillion
	color.RGBA{0, 158, 115, 255},   // bluish green
	color.RGBA{204, 121, 167, 255}, // reddish purple
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{86, 180, 233, 255},  // sky blue
	color.RGBA{0, 0, 0, 255},
}

func policyColor(i int) color.Color { return policyColors[i%len(policyColors)] }

// binLabel names figure bin i by its upper bound, short enough for a
// tick: "≤1K" for the first bin, then "3K", "300K", "3M", and ">3M" for
// the open last bin.
func binLabel(bins []int64, i int) string {
	short := func(b int64) string {
		switch {
		case b >= 1_000_000 && b%100_000 == 0:
			return strconv.FormatFloat(float64(b)/1e6, 'f', -1, 64) + "M"
		case b >= 1_000 && b%100 == 0:
			return strconv.FormatFloat(float64(b)/1e3, 'f', -1, 64) + "K"
		}
		return strconv.FormatInt(b, 10)
	}
	if bins[i] == math.MaxInt64 && i > 0 {
		return ">" + short(bins[i-1])
	}
	if i == 0 {
		return "≤" + short(bins[i])
	}
	return short(bins[i])
}

// WriteFigure writes the figure of scenario si of r to w as a PNG: FCT
// slowdown median, p95 and p99 per flow-size bin (r.Bins,
// metrics.FigureBins), each policy's value divided by the reference
// policy's in the same bin (so the reference is the line at 1; a bin
// without flows is left out) with its 95 % interval where the evaluation
// has one (PolicyResult.BinVsRef), and the scenario's flow-size CDF.
func (r *Report) WriteFigure(w io.Writer, si int) error {
	c, _, err := drawFigure(r, si)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// FigureFile is the name WriteFigures gives the figure of scenario si:
// the scenario's name with ".png".
func (r *Report) FigureFile(si int) string {
	return r.Scenarios[si].Scenario.Name + ".png"
}

// WriteFigures writes the figure of every scenario (WriteFigure) into the
// directory dir, which must exist, each atomically as FigureFile, and
// returns the names of the files written.
func (r *Report) WriteFigures(dir string) ([]string, error) {
	var names []string
	for si := range r.Scenarios {
		name := r.FigureFile(si)
		if err := fileio.WriteAtomic(filepath.Join(dir, name), func(w io.Writer) error { return r.WriteFigure(w, si) }); err != nil {
			return names, fmt.Errorf("figure %s: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// errorBars are the points of one policy's intervals in a panel.
type errorBars struct {
	plotter.XYs
	plotter.YErrors
}

// drawFigure draws WriteFigure's figure and returns it with the number of
// error bars it drew.
func drawFigure(rep *Report, si int) (*vgimg.Canvas, int, error) {
	sr := rep.Scenarios[si]
	ref := rep.RefIndex()
	img := vgimg.NewWith(vgimg.UseWH(figWidth, figHeight), vgimg.UseDPI(figDPI))
	dc := draw.New(img)

	stats := []struct {
		title string
		get   func(BinRatios) metrics.Ratio
	}{
		{"median", func(b BinRatios) metrics.Ratio { return b.P50 }},
		{"p95", func(b BinRatios) metrics.Ratio { return b.P95 }},
		{"p99", func(b BinRatios) metrics.Ratio { return b.P99 }},
	}
	nb := len(rep.Bins)
	ticks := make([]plot.Tick, nb)
	refBins := sr.Policies[ref].SlowdownByBin
	for b := range nb {
		ticks[b] = plot.Tick{Value: float64(b), Label: fmt.Sprintf("%s\n%s", binLabel(rep.Bins, b), countLabel(refBins[b].Count))}
	}
	var legend []plot.Thumbnailer
	drawn := 0 // error bars
	row := make([]*plot.Plot, 0, 4)
	for k, st := range stats {
		p := newPanel(fmt.Sprintf("%s FCT slowdown / %s's", st.title, rep.Reference))
		p.X.Label.Text = "flow size bin, by upper bound (bytes); flows in the bin"
		if k == 0 {
			p.Y.Label.Text = "relative to " + rep.Reference + " (lower is better)"
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		p.X.Min, p.X.Max = -0.5, float64(nb)-0.5
		one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(nb) - 0.5, Y: 1}})
		if err != nil {
			return nil, 0, err
		}
		one.Color = color.Gray{Y: 110}
		one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		one.Width = vg.Points(1)
		p.Add(one)
		lo, hi := 1.0, 1.0
		for pi, pr := range sr.Policies {
			var segs []plotter.XYs
			var pts plotter.XYs
			var bars errorBars
			cur := plotter.XYs{}
			for b := range nb {
				r := st.get(pr.BinVsRef[b])
				v := r.Value
				if math.IsNaN(v) {
					if len(cur) > 0 {
						segs = append(segs, cur)
						cur = plotter.XYs{}
					}
					continue
				}
				lo, hi = min(lo, v), max(hi, v)
				cur = append(cur, plotter.XY{X: float64(b), Y: v})
				pts = append(pts, plotter.XY{X: float64(b), Y: v})
				if r.HasInterval() && pi != ref {
					lo, hi = min(lo, r.Lo), max(hi, r.Hi)
					bars.XYs = append(bars.XYs, plotter.XY{X: float64(b), Y: v})
					bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{v - r.Lo, r.Hi - v})
				}
			}
			if len(cur) > 0 {
				segs = append(segs, cur)
			}
			width := vg.Points(2)
			if pi == ref {
				width = vg.Points(1.5)
			}
			for _, sg := range segs {
				l, err := plotter.NewLine(sg)
				if err != nil {
					return nil, 0, err
				}
				l.Color, l.Width = policyColor(pi), width
				p.Add(l)
			}
			if len(bars.XYs) > 0 {
				eb, err := plotter.NewYErrorBars(bars)
				if err != nil {
					return nil, 0, err
				}
				eb.Color, eb.Width, eb.CapWidth = policyColor(pi), vg.Points(1.5), vg.Points(8)
				p.Add(eb)
				drawn += len(bars.XYs)
			}
			var sc *plotter.Scatter
			if len(pts) > 0 {
				var err error
				if sc, err = plotter.NewScatter(pts); err != nil {
					return nil, 0, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: policyColor(pi), Radius: vg.Points(4), Shape: plotutil.Shape(pi)}
				p.Add(sc)
			}
			if k == 0 {
				l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
				l.Color, l.Width = policyColor(pi), width
				g, _ := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
				g.GlyphStyle = draw.GlyphStyle{Color: policyColor(pi), Radius: vg.Points(4), Shape: plotutil.Shape(pi)}
				legend = append(legend, thumbs{l, g})
			}
		}
		// Keep 1 off the edges and leave room around the points.
		pad := 0.08 * max(hi-lo, 0.2)
		p.Y.Min, p.Y.Max = max(0, lo-pad), hi+pad
		p.Y.Tick.Marker = withOne{}
		row = append(row, p)
	}
	cdf, err := cdfPanel(sr.Scenario)
	if err != nil {
		return nil, 0, err
	}
	row = append(row, cdf)

	// The legend runs from 55 % of the width to the right edge, in as many
	// rows as it needs; the strip above the panels grows to hold them.
	legends := make([]*plot.Legend, len(rep.Policies))
	widths := make([]vg.Length, len(rep.Policies))
	for pi, name := range rep.Policies {
		lg := plot.NewLegend()
		lg.TextStyle.Font.Size = 13
		lg.Left, lg.Top = true, true
		lg.ThumbnailWidth = vg.Points(30)
		label := name
		if pi == ref {
			label += " (reference)"
		}
		lg.Add(label, legend[pi])
		legends[pi], widths[pi] = &lg, lg.Rectangle(dc).Size().X+vg.Points(10)
	}
	more := draw.TextStyle{Color: color.Gray{Y: 60}, Font: font.From(plot.DefaultFont, 13), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	moreText := func(n int) string { return fmt.Sprintf("… and %d more (see the report)", n) }
	spots, kept, rows := fitLegend(widths, more.Width(moreText(len(widths)))+vg.Points(10),
		dc.Min.X+figWidth*0.55, dc.Max.X, vg.Points(18), maxLegendRows)
	const legendRow = 20 // points between legend rows
	stripH := figStrip + vg.Points(legendRow*float64(rows-1))

	body := draw.Crop(dc, 0, 0, 0, -stripH)
	tiles := draw.Tiles{Rows: 1, Cols: 4, PadX: vg.Points(18), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadBottom: vg.Points(4), PadTop: vg.Points(2)}
	canvases := plot.Align([][]*plot.Plot{row}, tiles, body)
	for i, p := range row {
		p.Draw(canvases[0][i])
	}

	// The strip: title on the first line, legend from the second.
	strip := draw.Crop(dc, 0, 0, figHeight-stripH, 0)
	title := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, 15), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	title.Font.Weight = 700
	flows := 0
	for _, n := range sr.Flows {
		flows += n
	}
	strip.FillText(title, vg.Point{X: strip.Min.X + vg.Points(12), Y: strip.Max.Y - vg.Points(6)},
		fmt.Sprintf("%s: %s", sr.Scenario.Name, sr.Scenario.Describe()))
	bars := ""
	if len(rep.Seeds) >= metrics.MinIntervalSeeds {
		bars = ", bars its 95 % interval"
	}
	sub := draw.TextStyle{Color: color.Gray{Y: 60}, Font: font.From(plot.DefaultFont, 11), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
	strip.FillText(sub, vg.Point{X: strip.Min.X + vg.Points(12), Y: strip.Max.Y - vg.Points(26)},
		fmt.Sprintf("%s flows over seeds %s; each policy's statistic divided by %s's in the same bin%s", groupThousands(flows), seedRanges(rep.Seeds), rep.Reference, bars))
	for pi, lg := range legends[:kept] {
		cell := strip
		cell.Min.X = spots[pi].x
		cell.Max.Y = strip.Max.Y - vg.Points(26+legendRow*float64(spots[pi].row))
		cell.Max.X = cell.Min.X + lg.Rectangle(cell).Size().X + vg.Points(10)
		lg.Draw(cell)
	}
	if kept < len(legends) {
		sp := spots[kept]
		strip.FillText(more, vg.Point{X: sp.x, Y: strip.Max.Y - vg.Points(26+legendRow*float64(sp.row))}, moreText(len(legends)-kept))
	}
	return img, drawn, nil
}

// maxLegendRows is the most rows of legend a figure gives up its panels'
// height for.
const maxLegendRows = 3

// fitLegend lays out legend entries of the given widths (legendLayout) in at
// most maxRows rows: all of them if they fit, else as many of the first as
// fit with a last entry of width moreWidth (for "… and N more") after them.
// It returns the spots (kept+1 of them when entries were left out, the last
// for the "more" entry), how many entries it kept and the rows used.
func fitLegend(widths []vg.Length, moreWidth, x0, xmax, gap vg.Length, maxRows int) ([]legendSpot, int, int) {
	if spots, rows := legendLayout(widths, x0, xmax, gap); rows <= maxRows {
		return spots, len(widths), rows
	}
	for k := len(widths) - 1; k >= 0; k-- {
		w := append(slices.Clone(widths[:k]), moreWidth)
		if spots, rows := legendLayout(w, x0, xmax, gap); rows <= maxRows || k == 0 {
			return spots, k, rows
		}
	}
	panic("unreachable")
}

// legendSpot is where a legend entry goes: its row from 0 and its left x.
type legendSpot struct {
	row int
	x   vg.Length
}

// legendLayout places entries of the given widths left to right from x0,
// gap apart, starting a new row at x0 when an entry would pass xmax (an
// entry wider than the whole row gets a row of its own); it returns each
// entry's spot and the number of rows (1 for none).
func legendLayout(widths []vg.Length, x0, xmax, gap vg.Length) ([]legendSpot, int) {
	spots := make([]legendSpot, len(widths))
	x, rows := x0, 1
	for i, w := range widths {
		if x > x0 && x+w > xmax {
			x, rows = x0, rows+1
		}
		spots[i] = legendSpot{rows - 1, x}
		x += w + gap
	}
	return spots, rows
}

// withOne is plot's default ticker with a labelled tick at 1, the
// reference, always: labels too close to it are dropped.
type withOne struct{}

func (withOne) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value == 1 {
			continue
		}
		if t.Label != "" && math.Abs(t.Value-1) < 0.1*(hi-lo) {
			t.Label = ""
		}
		out = append(out, t)
	}
	return append(out, plot.Tick{Value: 1, Label: "1"})
}

// thumbs draws several thumbnails as one legend icon.
type thumbs []plot.Thumbnailer

func (t thumbs) Thumbnail(c *draw.Canvas) {
	for _, th := range t {
		th.Thumbnail(c)
	}
}

func newPanel(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 13
	p.X.Label.TextStyle.Font.Size = 11
	p.Y.Label.TextStyle.Font.Size = 11
	p.X.Tick.Label.Font.Size = 10
	p.Y.Tick.Label.Font.Size = 10
	p.Add(plotter.NewGrid())
	return p
}

// cdfPanel plots the scenario's background flow-size CDF on a log axis. The
// CDF is linear in bytes between its points, so each segment is drawn
// through intermediate points to be exact on the log axis.
func cdfPanel(sc scenario.Scenario) (*plot.Plot, error) {
	p := newPanel("flow-size distribution (background flows)")
	p.X.Label.Text = "flow size (bytes)"
	p.Y.Label.Text = "CDF (%)"
	p.X.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = 0, 100
	var pts plotter.XYs
	if w := sc.Gen.Workload; w != nil {
		pt := w.Points
		for i := 1; i < len(pt); i++ {
			a, b := pt[i-1], pt[i]
			if b.Bytes <= 0 {
				continue
			}
			const steps = 16
			x0, k0 := a.Bytes, 1
			if x0 <= 0 {
				// From 0 bytes: start two decades below the point (not
				// below 1 byte), where the CDF is all but 0.
				x0, k0 = max(1, b.Bytes/100), 0
			}
			for k := k0; k <= steps; k++ {
				x := x0 * math.Pow(b.Bytes/x0, float64(k)/steps)
				y := a.Percent + (b.Percent-a.Percent)*(x-a.Bytes)/max(b.Bytes-a.Bytes, 1e-300)
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		p.Title.Text = "flow-size CDF: " + scenario.WorkloadTitle(w.Name)
	}
	if len(pts) == 0 {
		return p, nil
	}
	var ticks []plot.Tick
	for v, i := 1.0, 0; v <= 1e9; v, i = v*10, i+1 {
		if v < pts[0].X/10 || v > pts[len(pts)-1].X*10 {
			continue
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: []string{"1B", "10B", "100B", "1KB", "10KB", "100KB", "1MB", "10MB", "100MB", "1GB"}[i]})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = max(1, pts[0].X/1.5), pts[len(pts)-1].X*1.5
	l, err := plotter.NewLine(pts)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = color.Black, vg.Points(2)
	p.Add(l)
	return p, nil
}

// countLabel writes a flow count in at most five characters, to fit under
// a bin: "523", "7167", "12.3k", "375k", "1.01M".
func countLabel(n int) string {
	switch {
	case n >= 99_950_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 9_995_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 999_500:
		return fmt.Sprintf("%.2fM", float64(n)/1e6)
	case n >= 99_950:
		return fmt.Sprintf("%.0fk", float64(n)/1000)
	}
	if n >= 10_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return strconv.Itoa(n)
}

// seedRanges writes seeds comma-separated, runs of three or more
// consecutive seeds as ranges: "1001-1010,2001".
func seedRanges(s []uint64) string {
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, fmt.Sprintf("%d-%d", s[i], s[j]))
		} else {
			for _, v := range s[i : j+1] {
				parts = append(parts, strconv.FormatUint(v, 10))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
