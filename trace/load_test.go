package trace

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	fct := filepath.Join(dir, "fct.txt")
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(fct, []byte("0b000101 0b000201 10000 100 1000 2000000000 5000 3000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		n    int
		err  string
	}{
		{fct, 1, ""},
		{empty, 0, empty + ": no FCT records"},
		{filepath.Join(dir, "missing"), 0, "no such file"},
	} {
		recs, err := LoadFCT(tc.path)
		if tc.err == "" && (err != nil || len(recs) != tc.n) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("LoadFCT(%s) = %d records, %v; want %d, %q", tc.path, len(recs), err, tc.n, tc.err)
		}
	}
	for _, tc := range []struct {
		path string
		n    int
		err  string
	}{
		{"testdata/hpcc_flow.txt", 2, ""},
		{fct, 0, fct + ":1:"},
		{filepath.Join(dir, "missing"), 0, "no such file"},
	} {
		flows, err := LoadFlows(tc.path, hpccStar(t))
		if tc.err == "" && (err != nil || len(flows) != tc.n) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("LoadFlows(%s) = %d flows, %v; want %d, %q", tc.path, len(flows), err, tc.n, tc.err)
		}
	}
}

func TestWindowEnd(t *testing.T) {
	flows := []Flow{{Start: 5}, {Start: 3}, {Start: 9}}
	for _, tc := range []struct {
		flows []Flow
		d     int64
		want  int64
	}{
		{flows, 10, 13},
		{flows, 0, 0},
		{flows, -1, 0},
		{nil, 10, 0},
		{flows, math.MaxInt64 - 3, math.MaxInt64},
		{flows, math.MaxInt64 - 2, 0},
	} {
		if got := WindowEnd(tc.flows, tc.d); got != tc.want {
			t.Errorf("WindowEnd(%d flows, %d) = %d, want %d", len(tc.flows), tc.d, got, tc.want)
		}
	}
}
