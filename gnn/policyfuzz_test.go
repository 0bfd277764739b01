package gnn

import (
	"graphcc/internal/testfabric"
	"math"
	"strings"
	"testing"

	"graphcc/control"
	"graphcc/topo"
)

// FuzzPolicyModel feeds model files, of every shape and of arbitrary
// bytes, to the policy constructors (NewGraphCC, NewPerSwitch, NewInBand,
// NewACCFrom): each returns an error or a policy whose step runs, never a
// panic.
func FuzzPolicyModel(f *testing.F) {
	fab := testfabric.SmallClos(f)
	marshal := func(file *File) []byte {
		b, err := file.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	shaped := func(s Shape) []byte {
		m := NewModelShape(s, nnNewRand(1))
		return marshal(m.File(m.ActionSet.TableID(), nil))
	}
	f.Add(marshal(NewModel(nnNewRand(1)).File(ActionsPaper.TableID(), nil)))
	for _, s := range []Shape{
		{Features: 9, Hidden: 24, K: 2, Actions: 10},                         // another action table's width
		{Features: 7, Hidden: 24, K: 2, Actions: NumActions},                 // not its feature set's inputs
		{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: 5}, // not its host table's outputs
		{Features: 9, Hidden: 12, K: 1, Actions: NumActions},
	} {
		f.Add(shaped(s))
	}
	nets := []*MLPNet{NewMLPNet(ACCNumFeatures, 4, 3, nnNewRand(2)), NewMLPNet(ACCNumFeatures, 4, 3, nnNewRand(3))} // 3 actions
	f.Add(marshal(MLPNetsFile(nets, []string{"leaf0->spine0", "spine0->leaf0"}, ActionTableID, nil)))
	f.Add([]byte("graphcc model\n"))
	f.Add([]byte{0xff, 0x00, 0x13})
	f.Fuzz(func(t *testing.T, b []byte) {
		file, err := Unmarshal(b, "fuzz", Expect{})
		if err != nil {
			return
		}
		tel := &control.Telemetry{Now: 100 * topo.Microsecond, Interval: 100 * topo.Microsecond, Ports: make([]control.PortSample, len(fab.Ports))}
		ecn := control.StaticSettings(fab)
		if nets, ports, err := file.MLPNets(); err == nil {
			if a, err := NewACCFrom(nets, ports, fab, FeatureConfig{}); err == nil {
				a.Decide(tel, ecn)
			}
			return
		}
		m, err := file.Model()
		if err != nil {
			return
		}
		if g, err := NewGraphCC(m, fab, FeatureConfig{}); err == nil {
			g.Decide(tel, ecn)
			g.Inference().Close()
		}
		if ps, err := NewPerSwitch(m, fab, FeatureConfig{}); err == nil {
			ps.Decide(tel, ecn)
		}
		if ib, err := NewInBand(m, fab, FeatureConfig{}, InBandConfig{}); err == nil {
			ib.Decide(tel, ecn)
		}
	})
}

// TestPolicyModelErrors: a model that does not fit a GraphCC policy is an
// error of every constructor, naming what does not fit.
func TestPolicyModelErrors(t *testing.T) {
	fab := testfabric.SmallClos(t)
	short := NewModel(nnNewRand(1))
	short.Params = short.Params[:10]
	for _, tc := range []struct {
		name string
		m    *Model
		want string
	}{
		{"actions", NewModelShape(Shape{Features: 9, Hidden: 24, K: 2, Actions: 10}, nil), "120 actions"},
		{"inputs", NewModelShape(Shape{Features: 7, Hidden: 24, K: 2, Actions: NumActions}, nil), "9 features"},
		{"host actions", NewModelShape(Shape{Features: 9, Hidden: 24, K: 2, Actions: NumActions, HostActions: 5}, nil), "host actions"},
		{"parameters", short, "10 parameters"},
		{"shape", &Model{Shape: Shape{Features: 9, Hidden: 2, K: 2, Actions: NumActions}}, "hidden 2"},
		{"nil", nil, "no model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err1 := NewGraphCC(tc.m, fab, FeatureConfig{})
			_, err2 := NewPerSwitch(tc.m, fab, FeatureConfig{})
			_, err3 := NewInBand(tc.m, fab, FeatureConfig{}, InBandConfig{})
			for i, err := range []error{err1, err2, err3} {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("constructor %d: %v, want an error with %q", i, err, tc.want)
				}
			}
		})
	}
}

// TestFeatureConfigErrors: a feature config whose scales are not positive
// and finite is an error of every constructor, not a panic.
func TestFeatureConfigErrors(t *testing.T) {
	fab := testfabric.SmallClos(t)
	m := NewModel(nnNewRand(1))
	v, err := NewSwitchView(fab, fab.Switches()[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []FeatureConfig{{QueueScale: -1}, {RewardQueue: math.Inf(1)}, {QueueScale: math.NaN()}} {
		_, err1 := NewGraphCC(m, fab, c)
		_, err2 := NewPerSwitch(m, fab, c)
		_, err3 := NewInBand(m, fab, c, InBandConfig{})
		_, err4 := NewAgent(m, v, c)
		for i, err := range []error{err1, err2, err3, err4} {
			if err == nil || !strings.Contains(err.Error(), "scales must be positive and finite") {
				t.Errorf("%+v, constructor %d: %v", c, i, err)
			}
		}
	}
}
