package learn

import (
	"testing"

	"graphcc/gnn"
	"graphcc/topo"
)

// mustGraphCC is gnn.NewGraphCC for a model the test knows fits.
func mustGraphCC(t testing.TB, m *gnn.Model, f *topo.Fabric, c gnn.FeatureConfig) *gnn.GraphCC {
	t.Helper()
	g, err := gnn.NewGraphCC(m, f, c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
