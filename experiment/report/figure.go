package report

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"graphcc/experiment"
	"graphcc/internal/fileio"
	"graphcc/metrics"
	"graphcc/scenario"
)

// Figure geometry: one paper column wide, a header (title, the note on
// what is plotted, the legend) above four panels stacked: the median, p95
// and p99 ratios, which share the flow-size bins, and the flow-size CDF.
const (
	figWidth  = 3.5 * vg.Inch
	figPanels = 3.6 * vg.Inch // the four panels with their axes
	figDPI    = 300
	figHeader = 0.47 * vg.Inch // title and note, with one row of legend
	legendRow = 10             // points between legend rows
)

// Font sizes in points: legible in a 3.5 in column.
const (
	fontTitle = 8
	fontLabel = 7
	fontTick  = 6.5
)

// WriteFigure writes the figure of scenario si of rep to w as a PNG, one
// paper column (3.5 in) wide: FCT slowdown median, p95 and p99 per
// flow-size bin (rep.Bins, metrics.FigureBins), each policy's value divided
// by the reference policy's in the same bin (so the reference is the line
// at 1; a bin without flows is left out) with its 95 % interval where the
// evaluation has one (experiment.PolicyResult.BinVsRef), above the scenario's
// flow-size CDF. A policy has the same colour and marker in every figure
// (policyStyle).
func WriteFigure(w io.Writer, rep *experiment.Report, si int) error {
	return view{rep}.writeFigure(w, si)
}

// writeFigure is WriteFigure of r.
func (r view) writeFigure(w io.Writer, si int) error {
	c, _, err := drawFigure(r, si)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// FigureFile is the name WriteFigures gives the figure of scenario si:
// the scenario's name with ".png".
func FigureFile(rep *experiment.Report, si int) string { return view{rep}.figureFile(si) }

// figureFile is FigureFile of r.
func (r view) figureFile(si int) string {
	return r.Scenarios[si].Scenario.Name + ".png"
}

// WriteFigures writes the figure of every scenario of rep (WriteFigure) into the
// directory dir, which must exist, each atomically as FigureFile, and
// returns the names of the files written.
func WriteFigures(dir string, rep *experiment.Report) ([]string, error) {
	return view{rep}.writeFigures(dir)
}

// writeFigures is WriteFigures of r.
func (r view) writeFigures(dir string) ([]string, error) {
	var names []string
	for si := range r.Scenarios {
		name := r.figureFile(si)
		if err := fileio.WriteAtomic(filepath.Join(dir, name), func(w io.Writer) error { return r.writeFigure(w, si) }); err != nil {
			return names, fmt.Errorf("figure %s: %w", name, err)
		}
		names = append(names, name)
	}
	return names, nil
}

// figureStats are the statistics of the ratio panels, top to bottom.
var figureStats = []struct {
	name string
	get  func(experiment.BinRatios) metrics.Ratio
}{
	{"median", func(b experiment.BinRatios) metrics.Ratio { return b.P50 }},
	{"p95", func(b experiment.BinRatios) metrics.Ratio { return b.P95 }},
	{"p99", func(b experiment.BinRatios) metrics.Ratio { return b.P99 }},
}

// drawFigure draws WriteFigure's figure and returns it with the number of
// error bars it drew.
func drawFigure(rep view, si int) (*vgimg.Canvas, int, error) {
	var panels []*plot.Plot
	drawn := 0 // error bars
	for k, st := range figureStats {
		p, n, err := ratioPanel(rep, si, st.name, st.get, k == len(figureStats)-1)
		if err != nil {
			return nil, 0, err
		}
		panels, drawn = append(panels, p), drawn+n
	}
	cdf, err := cdfPanel(rep.Scenarios[si].Scenario)
	if err != nil {
		return nil, 0, err
	}
	panels = append(panels, cdf)

	lg := newFigureLegend(rep)
	header := figHeader + vg.Points(legendRow*float64(lg.rows-1))
	height := header + figPanels
	img := vgimg.NewWith(vgimg.UseWH(figWidth, height), vgimg.UseDPI(figDPI))
	dc := draw.New(img)
	body := draw.Crop(dc, 0, 0, 0, -header)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(5), PadLeft: vg.Points(2), PadRight: vg.Points(6), PadBottom: vg.Points(2)}
	column := make([][]*plot.Plot, len(panels))
	for i, p := range panels {
		column[i] = []*plot.Plot{p}
	}
	canvases := plot.Align(column, tiles, body)
	for i, p := range panels {
		p.Draw(canvases[i][0])
	}
	drawHeader(draw.Crop(dc, 0, 0, height-header, 0), rep, si, lg)
	return img, drawn, nil
}

// ratioPanel plots, per policy and flow-size bin, the statistic get picks
// divided by the reference's (the y axis names the statistic), with its
// interval; the bins are labelled, with the reference's flow counts, on
// the bottom panel only. It returns the panel and the error bars drawn.
func ratioPanel(rep view, si int, name string, get func(experiment.BinRatios) metrics.Ratio, bottom bool) (*plot.Plot, int, error) {
	sr := rep.Scenarios[si]
	nb := len(rep.Bins)
	// The bins are categories: no vertical grid, which only the labelled
	// ticks of the bottom panel would get.
	p := newPanel(false)
	p.Y.Label.Text = name // the header says of what over what
	p.X.Min, p.X.Max = -0.5, float64(nb)-0.5
	p.X.Tick.Marker = plot.ConstantTicks(binTicks(rep, si, bottom))
	if bottom {
		p.X.Label.Text = "flow-size bin (upper bound, bytes); flows in it"
	}
	one, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(nb) - 0.5, Y: 1}})
	if err != nil {
		return nil, 0, err
	}
	one.Color, one.Width = color.Gray{Y: 110}, vg.Points(0.6)
	one.Dashes = []vg.Length{vg.Points(2), vg.Points(1.5)}
	p.Add(one)
	lo, hi, drawn := 1.0, 1.0, 0
	for pi, pr := range sr.Policies {
		s, err := addRatios(p, pr, get, pi == rep.RefIndex())
		if err != nil {
			return nil, 0, err
		}
		lo, hi, drawn = min(lo, s.lo), max(hi, s.hi), drawn+s.bars
	}
	// Keep 1 off the edges and leave room around the points.
	pad := 0.08 * max(hi-lo, 0.2)
	p.Y.Min, p.Y.Max = max(0, lo-pad), hi+pad
	p.Y.Tick.Marker = regularTicks{through: 1}
	return p, drawn, nil
}

// seriesSpan is what addRatios drew: the range of its values and
// intervals, and its error bars.
type seriesSpan struct {
	lo, hi float64
	bars   int
}

// errorBars are the points of one policy's intervals in a panel.
type errorBars struct {
	plotter.XYs
	plotter.YErrors
}

// addRatios adds policy pr's ratios to p in its style (policyStyle): a
// line through the bins that have flows, broken at those that do not, a
// marker on each, and, unless pr is the reference, its intervals.
func addRatios(p *plot.Plot, pr experiment.PolicyResult, get func(experiment.BinRatios) metrics.Ratio, ref bool) (seriesSpan, error) {
	span := seriesSpan{lo: math.Inf(1), hi: math.Inf(-1)}
	var segs []plotter.XYs
	var pts, cur plotter.XYs
	var bars errorBars
	for b, br := range pr.BinVsRef {
		r := get(br)
		if math.IsNaN(r.Value) { // a bin without flows: left out
			if len(cur) > 0 {
				segs, cur = append(segs, cur), nil
			}
			continue
		}
		xy := plotter.XY{X: float64(b), Y: r.Value}
		span.lo, span.hi = min(span.lo, r.Value), max(span.hi, r.Value)
		cur, pts = append(cur, xy), append(pts, xy)
		if r.HasInterval() && !ref {
			span.lo, span.hi = min(span.lo, r.Lo), max(span.hi, r.Hi)
			bars.XYs = append(bars.XYs, xy)
			bars.YErrors = append(bars.YErrors, struct{ Low, High float64 }{r.Value - r.Lo, r.Hi - r.Value})
		}
	}
	if len(cur) > 0 {
		segs = append(segs, cur)
	}
	st := policyStyle(pr.Policy)
	for _, sg := range segs {
		l, err := plotter.NewLine(sg)
		if err != nil {
			return span, err
		}
		l.LineStyle = st.line(ref)
		p.Add(l)
	}
	if len(bars.XYs) > 0 {
		eb, err := plotter.NewYErrorBars(bars)
		if err != nil {
			return span, err
		}
		eb.Color, eb.Width, eb.CapWidth = st.color, vg.Points(0.6), vg.Points(3)
		p.Add(eb)
		span.bars = len(bars.XYs)
	}
	if len(pts) > 0 {
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return span, err
		}
		sc.GlyphStyle = st.glyph()
		p.Add(sc)
	}
	return span, nil
}

// binTicks are the ticks of the flow-size bins: with labels, each bin's
// upper bound over the number of the reference's flows in it.
func binTicks(rep view, si int, labels bool) []plot.Tick {
	refBins := rep.Scenarios[si].Policies[rep.RefIndex()].SlowdownByBin
	ticks := make([]plot.Tick, len(rep.Bins))
	for b := range ticks {
		ticks[b].Value = float64(b)
		if labels {
			ticks[b].Label = binLabel(rep.Bins, b) + "\n" + countLabel(refBins[b].Count)
		}
	}
	return ticks
}

// figureLegend is the legend of a figure laid out in its header: one
// entry per policy (the reference marked), as many as fit in
// maxLegendRows rows, then "… and N more".
type figureLegend struct {
	entries []*plot.Legend
	spots   []legendSpot
	kept    int
	rows    int
	more    draw.TextStyle
}

func newFigureLegend(rep view) figureLegend {
	// A canvas to measure text on; the legend is laid out the same on any.
	measure := draw.New(vgimg.New(figWidth, figHeader))
	lg := figureLegend{entries: make([]*plot.Legend, len(rep.Policies)), more: textStyle(fontLabel, color.Gray{Y: 60})}
	widths := make([]vg.Length, len(rep.Policies))
	for pi, name := range rep.Policies {
		e := plot.NewLegend()
		e.TextStyle.Font.Size = fontLabel
		e.Left, e.Top = true, true
		e.ThumbnailWidth = vg.Points(14)
		label := name
		if pi == rep.RefIndex() {
			label += " (reference)"
		}
		st := policyStyle(name)
		l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 0}})
		l.LineStyle = st.line(pi == rep.RefIndex())
		g, _ := plotter.NewScatter(plotter.XYs{{X: 0, Y: 0}})
		g.GlyphStyle = st.glyph()
		e.Add(label, thumbs{l, g})
		lg.entries[pi], widths[pi] = &e, e.Rectangle(measure).Size().X
	}
	lg.spots, lg.kept, lg.rows = fitLegend(widths, lg.more.Width(moreText(len(widths))),
		vg.Points(4), figWidth-vg.Points(4), vg.Points(8), maxLegendRows)
	return lg
}

// moreText is the legend's last entry when n policies did not fit.
func moreText(n int) string { return fmt.Sprintf("… and %d more (see the report)", n) }

// drawHeader draws the header of the figure of scenario si into strip:
// the scenario, its flows and seeds; what the panels plot; the legend.
func drawHeader(strip draw.Canvas, rep view, si int, lg figureLegend) {
	sr := rep.Scenarios[si]
	flows := 0
	for _, n := range sr.Flows {
		flows += n
	}
	x, top := strip.Min.X+vg.Points(4), strip.Max.Y-vg.Points(2)
	strip.FillText(textStyle(fontTitle, color.Black), vg.Point{X: x, Y: top},
		fmt.Sprintf("%s: %s flows, seeds %s", sr.Scenario.Name, groupThousands(flows), experiment.FormatSeeds(rep.Seeds)))
	note := fmt.Sprintf("FCT slowdown / %s's in the same flow-size bin", rep.Reference)
	if len(rep.Seeds) >= metrics.MinIntervalSeeds {
		note += fmt.Sprintf("; bars: %.0f %% CI", 100*metrics.CILevel)
	}
	strip.FillText(textStyle(fontLabel, color.Gray{Y: 60}), vg.Point{X: x, Y: top - vg.Points(fontTitle+3)}, note)
	first := top - vg.Points(fontTitle+fontLabel+6)
	for pi, e := range lg.entries[:lg.kept] {
		cell := strip
		cell.Min.X = lg.spots[pi].x
		cell.Max.Y = first - vg.Points(legendRow*float64(lg.spots[pi].row))
		cell.Max.X = cell.Min.X + e.Rectangle(cell).Size().X + vg.Points(4)
		e.Draw(cell)
	}
	if lg.kept < len(lg.entries) {
		sp := lg.spots[lg.kept]
		strip.FillText(lg.more, vg.Point{X: sp.x, Y: first - vg.Points(legendRow*float64(sp.row))}, moreText(len(lg.entries)-lg.kept))
	}
}

// textStyle is a figure's text style: size points, top-aligned.
func textStyle(size float64, c color.Color) draw.TextStyle {
	return draw.TextStyle{Color: c, Font: font.From(plot.DefaultFont, font.Length(size)), Handler: plot.DefaultTextHandler, YAlign: draw.YTop}
}

// newPanel returns a panel with the figure's font sizes and a horizontal
// grid, and a vertical one if vertical.
func newPanel(vertical bool) *plot.Plot {
	p := plot.New()
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = fontLabel
		a.Tick.Label.Font.Size = fontTick
		a.Tick.Length = vg.Points(3)
		a.Width = vg.Points(0.6)
		a.Tick.LineStyle.Width = vg.Points(0.6)
		a.Padding = vg.Points(2)
	}
	g := plotter.NewGrid()
	g.Vertical.Width, g.Horizontal.Width = vg.Points(0.3), vg.Points(0.3)
	if !vertical {
		g.Vertical.Color = nil
	}
	p.Add(g)
	return p
}

// cdfPanel plots the scenario's background flow-size CDF on a log axis
// (Scenario.SizeCDF). The
// CDF is linear in bytes between its points, so each segment is drawn
// through intermediate points to be exact on the log axis.
func cdfPanel(sc scenario.Scenario) (*plot.Plot, error) {
	p := newPanel(true)
	p.X.Label.Text = "flow size (bytes, log scale)"
	p.Y.Label.Text = "CDF (%)"
	p.X.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = 0, 100
	p.Y.Tick.Marker = regularTicks{}
	pts := cdfPoints(sc)
	switch w := sc.SizeCDF(); {
	case w == nil:
	case len(sc.Gen.Phases) > 0 && w != sc.Gen.Phases[0].Workload:
		p.Y.Label.Text = "phases' mix CDF (%)" // the workloads' names would not fit
	default:
		p.Y.Label.Text = scenario.WorkloadTitle(w.Name) + " CDF (%)"
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
	l.Color, l.Width = color.Black, vg.Points(1)
	p.Add(l)
	return p, nil
}

// cdfPoints are the points of cdfPanel's line: between the points of the
// scenario's size CDF (for phased traffic, the mix of its phases'), 16
// steps evenly spaced on the log axis.
func cdfPoints(sc scenario.Scenario) plotter.XYs {
	w := sc.SizeCDF()
	if w == nil {
		return nil
	}
	var pts plotter.XYs
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
	return pts
}
