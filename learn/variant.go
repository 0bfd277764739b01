package learn

import (
	"fmt"
	"slices"
	"strings"

	"graphcc/topo"
)

// A fabricVariant is a fabric a training episode ran on other than the
// reference (Config.Fabric): the reference with some links failed,
// as a scenario's random failures draw them per seed. Transitions are
// stored on the reference's layout (its ports' features, its agents'
// actions); a variant says where its own ports and agents sit there.
type fabricVariant struct {
	key   string       // the failed links' names in the reference's order, space-separated (names hold no spaces)
	f     *topo.Fabric // the variant
	port  []int32      // f's PortID -> the reference's
	agent []int32      // index in f.Agents() -> index in the reference's Agents()
}

// variantOf returns the variant that f is of ref, or nil when f has exactly
// ref's links. It fails unless f is ref with links removed: every link of
// f a link of ref by name, with the same ends.
func variantOf(f, ref *topo.Fabric) (*fabricVariant, error) {
	if f.SameLinks(ref) == nil {
		return nil, nil
	}
	refLink := make(map[string]topo.LinkID, len(ref.Links))
	for _, l := range ref.Links {
		refLink[l.Name] = l.ID
	}
	has := make([]bool, len(ref.Links))
	for _, l := range f.Links {
		id, ok := refLink[l.Name]
		if !ok {
			return nil, fmt.Errorf("the fabric has link %s, the training fabric does not", l.Name)
		}
		rl := ref.Links[id]
		if ends(f, l.A, l.B) != ends(ref, rl.A, rl.B) {
			return nil, fmt.Errorf("the fabric's link %s joins %s, the training fabric's %s", l.Name, ends(f, l.A, l.B), ends(ref, rl.A, rl.B))
		}
		has[id] = true
	}
	var failed []string
	for id, ok := range has {
		if !ok {
			failed = append(failed, ref.Links[id].Name)
		}
	}
	// A port is its link and its source: that pair names it in both
	// fabrics, parallel links included.
	type end struct {
		link string
		src  string
	}
	refPort := make(map[end]topo.PortID, len(ref.Ports))
	for _, p := range ref.Ports {
		refPort[end{ref.Links[p.Link].Name, ref.Nodes[p.Src].Name}] = p.ID
	}
	refAgent := make([]int32, len(ref.Ports))
	for i := range refAgent {
		refAgent[i] = -1
	}
	for i, p := range ref.Agents() {
		refAgent[p] = int32(i)
	}
	v := &fabricVariant{key: strings.Join(failed, " "), f: f, port: make([]int32, len(f.Ports)), agent: make([]int32, len(f.Agents()))}
	for _, p := range f.Ports {
		v.port[p.ID] = int32(refPort[end{f.Links[p.Link].Name, f.Nodes[p.Src].Name}])
	}
	for i, p := range f.Agents() {
		if v.agent[i] = refAgent[v.port[p]]; v.agent[i] < 0 {
			return nil, fmt.Errorf("the fabric's port %s is an agent, the training fabric's is not", f.PortName(p))
		}
	}
	return v, nil
}

// ends names a link's two nodes, in order.
func ends(f *topo.Fabric, a, b topo.NodeID) string {
	x, y := f.Nodes[a].Name, f.Nodes[b].Name
	if x > y {
		x, y = y, x
	}
	return x + "-" + y
}

// remap lays a transition on v (w features per port) out on the reference,
// of refPorts ports and refAgents agents: the ports v lacks get features 0,
// their agents NoAction and reward 0.
func (v *fabricVariant) remap(w, refPorts, refAgents int, prev []float64, actions []int, rewards []float64, next []float64) stepRecord {
	st := stepRecord{
		fabric: v.key,
		prev:   make([]float64, refPorts*w), next: make([]float64, refPorts*w),
		actions: make([]int, refAgents), rewards: make([]float64, refAgents),
	}
	for j := range st.actions {
		st.actions[j] = NoAction
	}
	scatterRows(st.prev, prev, v.port, w)
	scatterRows(st.next, next, v.port, w)
	for i, j := range v.agent {
		st.actions[j], st.rewards[j] = actions[i], rewards[i]
	}
	return st
}

// variantSet is the fabrics of a training run's transitions, indexed as the
// replay buffer's Fabrics: 0 is the reference (nil), every other the
// reference with the links of its tag failed. GraphCC's updates pass
// messages over each transition's own fabric.
type variantSet struct {
	ref  *topo.Fabric
	list []*fabricVariant
}

// sync builds the variants of the buffer's tags it lacks, by failing their
// links on the reference.
func (s *variantSet) sync(tags []string) error {
	if len(s.list) == 0 {
		s.list = append(s.list, nil)
	}
	if len(tags) < len(s.list) || tags[0] != "" {
		return fmt.Errorf("fabric tags %q do not extend the %d known", tags, len(s.list))
	}
	for _, key := range tags[len(s.list):] {
		g, err := s.ref.FailLinks(strings.Fields(key)...)
		if err != nil {
			return fmt.Errorf("fabric without %s: %w", key, err)
		}
		v, err := variantOf(g, s.ref)
		if err != nil || v == nil || v.key != key {
			return fmt.Errorf("fabric without %s: not the training fabric with those links failed (%v)", key, err)
		}
		s.list = append(s.list, v)
	}
	return nil
}

// check reports whether episode variant v (of tag k) is laid out as the
// set's: an Episode function whose failed fabric renumbers ports otherwise
// than topo.Fabric.FailLinks would have its transitions learnt on the
// wrong graph.
func (s *variantSet) check(v *fabricVariant) error {
	k := slices.IndexFunc(s.list, func(w *fabricVariant) bool { return w != nil && w.key == v.key })
	if k < 0 {
		return fmt.Errorf("fabric without %s: unknown", v.key)
	}
	if w := s.list[k]; !slices.Equal(w.port, v.port) || !slices.Equal(w.agent, v.agent) {
		return fmt.Errorf("the episode's fabric without %s numbers its ports otherwise than the training fabric with those links failed", v.key)
	}
	return nil
}

// gatherRows copies row idx[i] of src to row i of dst, rows w wide.
func gatherRows(dst, src []float64, idx []int32, w int) {
	for i, j := range idx {
		copy(dst[i*w:(i+1)*w], src[int(j)*w:(int(j)+1)*w])
	}
}

// scatterRows copies row i of src to row idx[i] of dst, rows w wide.
func scatterRows(dst, src []float64, idx []int32, w int) {
	for i, j := range idx {
		copy(dst[int(j)*w:(int(j)+1)*w], src[i*w:(i+1)*w])
	}
}
