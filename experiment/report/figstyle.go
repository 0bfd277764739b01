package report

import (
	"fmt"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// figStyle is how a policy is drawn in every figure.
type figStyle struct {
	color color.Color
	shape draw.GlyphDrawer
}

// Okabe-Ito colours, distinct to colour-blind eyes.
var (
	okabeBlue      = color.RGBA{0, 114, 178, 255}
	okabeVermilion = color.RGBA{213, 94, 0, 255}
	okabeGreen     = color.RGBA{0, 158, 115, 255}
	okabePurple    = color.RGBA{204, 121, 167, 255}
	okabeOrange    = color.RGBA{230, 159, 0, 255}
	okabeSky       = color.RGBA{86, 180, 233, 255}
)

// knownStyles are the styles of the policies of the main job and the
// paper, whatever the order or number of policies in a figure.
var knownStyles = map[string]figStyle{
	"static":  {okabeBlue, draw.RingGlyph{}},
	"acc":     {okabeVermilion, draw.SquareGlyph{}},
	"graphcc": {okabeGreen, draw.TriangleGlyph{}},
	"ideal":   {color.Black, draw.CrossGlyph{}},
}

// Any other policy gets one of these colours and one of these markers,
// chosen by a hash of its name: none is a known policy's pair.
var (
	otherColors = []color.Color{okabeOrange, okabeSky, okabePurple, color.Gray{Y: 110}}
	otherShapes = []draw.GlyphDrawer{draw.PlusGlyph{}, draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}}
)

// policyStyle returns the colour and marker of the policy named name: a
// fixed one for static, acc, graphcc and ideal, one of 16 others by a hash
// of the name for any other, so that a policy looks the same in every
// figure.
func policyStyle(name string) figStyle {
	if s, ok := knownStyles[name]; ok {
		return s
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	n := h.Sum32()
	return figStyle{otherColors[n%uint32(len(otherColors))], otherShapes[n/uint32(len(otherColors))%uint32(len(otherShapes))]}
}

// line is the style of the policy's line; the reference's is thinner.
func (s figStyle) line(ref bool) draw.LineStyle {
	w := vg.Points(1.1)
	if ref {
		w = vg.Points(0.8)
	}
	return draw.LineStyle{Color: s.color, Width: w}
}

// glyph is the style of the policy's markers.
func (s figStyle) glyph() draw.GlyphStyle {
	return draw.GlyphStyle{Color: s.color, Radius: vg.Points(2.2), Shape: s.shape}
}

// regularTicks labels a linear axis at a regular step (tickStep: about
// five steps over the axis) on a grid through the value through (1 on an
// axis of ratios to the reference) while the step is below 1, through 0
// from a step of 1.
type regularTicks struct{ through float64 }

func (t regularTicks) Ticks(lo, hi float64) []plot.Tick {
	step, prec := tickStep((hi - lo) / 5)
	at := t.through
	if step >= 1 { // 0, 20, 40 rather than 1, 21, 41
		at = 0
	}
	var out []plot.Tick
	for k := math.Ceil((lo-at)/step - 1e-9); at+k*step <= hi+step*1e-9; k++ {
		v := at + k*step
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', prec, 64)})
	}
	return out
}

// tickStep returns the smallest of 1, 2, 2.5 (below 1) and 5 times a
// power of ten that is at least raw, and the decimals that write its
// multiples.
func tickStep(raw float64) (float64, int) {
	if !(raw > 0) || math.IsInf(raw, 0) {
		return 1, 0
	}
	e := math.Floor(math.Log10(raw))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m == 2.5 && e >= 0 { // 2.5, 25: labels of one more digit than needed
			continue
		}
		if step := m * math.Pow(10, e); step >= raw*(1-1e-9) {
			if m == 10 {
				e, m = e+1, 1
			}
			prec := max(0, -int(e))
			if m == 2.5 {
				prec = max(0, 1-int(e))
			}
			return m * math.Pow(10, e), prec
		}
	}
	panic("unreachable")
}

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

// thumbs draws several thumbnails as one legend icon.
type thumbs []plot.Thumbnailer

func (t thumbs) Thumbnail(c *draw.Canvas) {
	for _, th := range t {
		th.Thumbnail(c)
	}
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
