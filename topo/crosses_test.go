package topo

import "testing"

func TestCrosses(t *testing.T) {
	// Ports 2k and 2k+1 are link k's two directions.
	for _, tc := range []struct {
		path []PortID
		l    LinkID
		want bool
	}{
		{nil, 0, false},
		{[]PortID{0, 4}, 0, true},
		{[]PortID{3}, 1, true},
		{[]PortID{0, 4}, 1, false},
		{[]PortID{0, 5}, 2, true},
	} {
		if got := Crosses(tc.path, tc.l); got != tc.want {
			t.Errorf("Crosses(%v, %d) = %v, want %v", tc.path, tc.l, got, tc.want)
		}
	}
}
