package workload

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
)

// Mix returns the mixture of the flow-size distributions cdfs with the
// given weights (a flow of the mixture is one of cdfs[i]'s with
// probability weights[i] over their sum): the CDF of the sizes of a trace
// whose flows come from several workloads, as phased traffic's do (a
// phase's weight is then its expected flow count). Between the sizes of
// all the cdfs' points every CDF is linear, so the mixture is exact with a
// point at each of those sizes (two where one of the cdfs jumps). Its Mean
// is the weighted mean of theirs. Every CDF must be valid (ReadCDF) and
// every weight non-negative and finite, with a positive sum.
func Mix(name string, cdfs []*CDF, weights []float64) (*CDF, error) {
	if len(cdfs) == 0 || len(cdfs) != len(weights) {
		return nil, fmt.Errorf("mix: %d CDFs and %d weights", len(cdfs), len(weights))
	}
	total := 0.0
	var sizes []float64
	for i, c := range cdfs {
		w := weights[i]
		if c == nil || len(c.Points) == 0 || !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("mix: CDF %d (weight %v) is empty or its weight is not a non-negative number", i, w)
		}
		total += w
		for _, p := range c.Points {
			sizes = append(sizes, p.Bytes)
		}
	}
	if !(total > 0) || math.IsInf(total, 0) {
		return nil, errors.New("mix: the weights sum to no positive number")
	}
	slices.Sort(sizes)
	sizes = slices.Compact(sizes)
	out := &CDF{Name: name}
	add := func(x, pct float64) {
		if n := len(out.Points); n > 0 {
			pct = max(pct, out.Points[n-1].Percent) // rounding never makes it fall
		}
		out.Points = append(out.Points, CDFPoint{Bytes: x, Percent: min(pct, 100)})
	}
	for _, x := range sizes {
		left, right := 0.0, 0.0
		for i, c := range cdfs {
			left += weights[i] * c.percentBelow(x)
			right += weights[i] * c.percentAt(x)
		}
		left, right = left/total, right/total
		if len(out.Points) == 0 {
			left = 0 // every CDF starts at 0 %
		}
		if len(out.Points) == 0 || left != right {
			add(x, left)
		}
		add(x, right)
	}
	out.Points[len(out.Points)-1].Percent = 100
	return out, nil
}

// percentAt is the CDF at size x: the percent of flows of at most x bytes
// (at a jump, the top of it).
func (c *CDF) percentAt(x float64) float64 {
	p := c.Points
	i := sort.Search(len(p), func(k int) bool { return p[k].Bytes > x }) - 1 // last point <= x
	switch {
	case i < 0:
		return 0
	case i == len(p)-1:
		return 100
	case p[i].Bytes == x:
		return p[i].Percent
	}
	return interpolate(p[i], p[i+1], x)
}

// percentBelow is the CDF's limit from below at size x: the percent of
// flows shorter than x bytes (at a jump, the bottom of it).
func (c *CDF) percentBelow(x float64) float64 {
	p := c.Points
	i := sort.Search(len(p), func(k int) bool { return p[k].Bytes >= x }) // first point >= x
	switch {
	case i == len(p):
		return 100
	case i == 0:
		return 0
	case p[i].Bytes == x:
		return p[i].Percent
	}
	return interpolate(p[i-1], p[i], x)
}

// interpolate is the CDF between points a and b (a.Bytes < x < b.Bytes).
func interpolate(a, b CDFPoint, x float64) float64 {
	return a.Percent + (b.Percent-a.Percent)*(x-a.Bytes)/(b.Bytes-a.Bytes)
}
