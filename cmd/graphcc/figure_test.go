package main

import (
	"reflect"
	"testing"

	"gonum.org/v1/plot/vg"
)

func TestLegendLayout(t *testing.T) {
	tests := []struct {
		name   string
		widths []vg.Length
		want   []legendSpot
		rows   int
	}{
		{"none", nil, []legendSpot{}, 1},
		{"one row", []vg.Length{10, 20}, []legendSpot{{0, 100}, {0, 112}}, 1},
		{"fills exactly", []vg.Length{40, 38}, []legendSpot{{0, 100}, {0, 142}}, 1},
		{"wraps", []vg.Length{40, 40, 40, 10}, []legendSpot{{0, 100}, {1, 100}, {2, 100}, {2, 142}}, 3},
		{"too wide alone", []vg.Length{500, 10}, []legendSpot{{0, 100}, {1, 100}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rows := legendLayout(tt.widths, 100, 180, 2)
			if !reflect.DeepEqual(got, tt.want) || rows != tt.rows {
				t.Errorf("got %v in %d rows, want %v in %d", got, rows, tt.want, tt.rows)
			}
		})
	}
}
