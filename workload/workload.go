package workload

import (
	"bufio"
	"embed"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// builtinCDFs holds HPCC's four flow-size distributions, copied unchanged
// from traffic_gen/ of alibaba-edu/High-Precision-Congestion-Control.
//
//go:embed workloads/*.txt
var builtinCDFs embed.FS

// builtinFiles maps the short workload names accepted by Workload to the
// embedded files. It is never modified.
var builtinFiles = map[string]string{
	"fb_hadoop":  "workloads/FbHdp_distribution.txt",
	"websearch":  "workloads/WebSearch_distribution.txt",
	"alistorage": "workloads/AliStorage2019.txt",
	"googlerpc":  "workloads/GoogleRPC2008.txt",
}

// IsBuiltin reports whether name (in any case) is a built-in workload.
func IsBuiltin(name string) bool {
	_, ok := builtinFiles[strings.ToLower(name)]
	return ok
}

// maxCDFBytes bounds the sizes a CDF may name, so that every sample converts
// to an int64 exactly.
const maxCDFBytes = 1 << 62

// CDFPoint is one line of an HPCC flow-size CDF: Percent percent of flows are
// at most Bytes bytes long.
type CDFPoint struct {
	Bytes   float64
	Percent float64
}

// CDF is a piecewise-linear flow-size distribution in HPCC's format. Points
// are valid whenever a CDF comes from ReadCDF, Workload or LoadCDF: sizes are
// non-negative and non-decreasing, and percents are non-decreasing from 0 at
// the first point to 100 at the last.
type CDF struct {
	Name   string
	Points []CDFPoint
}

// ReadCDF reads a flow-size CDF in HPCC's format: one `size cdf_percent`
// pair per line (blank lines are skipped). name is used in error messages,
// which have the form "name:line: reason".
//
// HPCC's custom_rand.py insists on strictly increasing sizes and percents;
// ReadCDF also accepts equal neighbours (a repeated size is a point mass, a
// repeated percent an empty size range), which sample and average the same
// way under HPCC's interpolation.
func ReadCDF(r io.Reader, name string) (*CDF, error) {
	c := &CDF{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			return nil, fmt.Errorf("%s:%d: want 2 fields (size cdf_percent), got %d", name, line, len(fields))
		}
		size, err := parseFinite(fields[0])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad size: %w", name, line, err)
		}
		pct, err := parseFinite(fields[1])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: bad percent: %w", name, line, err)
		}
		switch {
		case size < 0:
			return nil, fmt.Errorf("%s:%d: negative size %v", name, line, size)
		case size > maxCDFBytes:
			return nil, fmt.Errorf("%s:%d: size %v out of range (max 2^62)", name, line, size)
		case pct < 0 || pct > 100:
			return nil, fmt.Errorf("%s:%d: percent %v out of [0,100]", name, line, pct)
		}
		if n := len(c.Points); n == 0 {
			if pct != 0 {
				return nil, fmt.Errorf("%s:%d: CDF starts at %v percent, not 0", name, line, pct)
			}
		} else {
			prev := c.Points[n-1]
			if size < prev.Bytes {
				return nil, fmt.Errorf("%s:%d: non-monotone CDF: size %v after %v", name, line, size, prev.Bytes)
			}
			if pct < prev.Percent {
				return nil, fmt.Errorf("%s:%d: non-monotone CDF: percent %v after %v", name, line, pct, prev.Percent)
			}
		}
		c.Points = append(c.Points, CDFPoint{Bytes: size, Percent: pct})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(c.Points) == 0 {
		return nil, fmt.Errorf("%s:%d: empty CDF", name, max(line, 1))
	}
	if last := c.Points[len(c.Points)-1]; last.Percent != 100 {
		return nil, fmt.Errorf("%s:%d: CDF ends at %v percent, not 100", name, line, last.Percent)
	}
	return c, nil
}

// parseFinite parses a decimal floating-point number, rejecting NaN and
// infinities.
func parseFinite(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) {
			err = ne.Err
		}
		return 0, fmt.Errorf("%q: %w", s, err)
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: not a finite number", s)
	}
	return v, nil
}

// valueAt is HPCC's getValueFromPercentile: the size at percentile y, by
// linear interpolation between the first point (after the first) whose
// percent is >= y and the point before it. HPCC scans linearly; percents
// being non-decreasing, a binary search finds the same point.
func (c *CDF) valueAt(y float64) float64 {
	p := c.Points
	if len(p) < 2 {
		if len(p) == 1 {
			return p[0].Bytes
		}
		return 0
	}
	i := 1 + sort.Search(len(p)-1, func(k int) bool { return y <= p[k+1].Percent })
	if i == len(p) {
		return p[len(p)-1].Bytes
	}
	x0, y0 := p[i-1].Bytes, p[i-1].Percent
	x1, y1 := p[i].Bytes, p[i].Percent
	if y1 == y0 { // only when y == y0 == y1 at i == 1
		return x0
	}
	// Clamped to [x0, x1] against rounding (it only matters for sizes
	// beyond 2^53).
	return min(max(x0+(x1-x0)/(y1-y0)*(y-y0), x0), x1)
}

// Sample draws one flow size as HPCC's traffic_gen.py does: a uniform
// percentile in [0,100), the interpolated size, truncated to an integer, and
// a size <= 0 becomes 1.
func (c *CDF) Sample(r *rand.Rand) int64 {
	v := c.valueAt(r.Float64() * 100)
	if v >= maxCDFBytes {
		return maxCDFBytes
	}
	size := int64(v)
	if size <= 0 {
		size = 1
	}
	return size
}

// Mean is HPCC's getAvg: the mean flow size in bytes of the piecewise-linear
// distribution (before Sample's integer truncation).
func (c *CDF) Mean() float64 {
	p := c.Points
	if len(p) == 0 {
		return 0
	}
	s := 0.0
	lastX, lastY := p[0].Bytes, p[0].Percent
	for _, q := range p[1:] {
		s += (q.Bytes + lastX) / 2.0 * (q.Percent - lastY)
		lastX, lastY = q.Bytes, q.Percent
	}
	return s / 100
}

// Builtin returns a fresh copy of a built-in flow-size distribution by its
// short name, case-insensitively: "fb_hadoop" (HPCC's FbHdp_distribution.txt),
// "websearch" (WebSearch_distribution.txt), "alistorage" (AliStorage2019.txt)
// or "googlerpc" (GoogleRPC2008.txt). The CDF's Name is the short name.
func Builtin(name string) (*CDF, error) {
	key := strings.ToLower(name)
	file, ok := builtinFiles[key]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	data, err := builtinCDFs.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("workload %s: %w", key, err)
	}
	c, err := ReadCDF(strings.NewReader(string(data)), file)
	if err != nil {
		return nil, err
	}
	c.Name = key
	return c, nil
}

// Names lists the short names of the built-in workloads, sorted.
func Names() []string {
	names := make([]string, 0, len(builtinFiles))
	for k := range builtinFiles {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// LoadCDF returns the built-in workload named spec (see Workload), or else
// reads the CDF file at path spec. A file's CDF is named by its path.
func LoadCDF(spec string) (*CDF, error) {
	if _, ok := builtinFiles[strings.ToLower(spec)]; ok {
		return Builtin(spec)
	}
	f, err := os.Open(spec)
	if err != nil {
		return nil, fmt.Errorf("workload %q is neither a built-in (%s) nor a readable file: %w",
			spec, strings.Join(Names(), ", "), err)
	}
	defer f.Close()
	return ReadCDF(f, spec)
}
