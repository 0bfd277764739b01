package topo

// Graph is the message-passing graph over all ports (host egress ports
// included as neighbours; only switch ports are agents). Neighbour lists are
// stored in compressed sparse rows.
type Graph struct {
	Agent             []bool   // per PortID: the port's source is a switch
	InStart, OutStart []int32  // CSR offsets, len = len(Ports)+1
	In, Out           []PortID // In[InStart[p]:InStart[p+1]] = B_i(p) = ports q with q.Dst == p.Src; Out... = B_e(p) = ports q with q.Src == p.Dst (both in increasing id order, defined literally, so the reverse port is included)
}

// Ingress returns B_i(p): the ports whose destination is p's source, in
// increasing id order (p's reverse port included).
func (g *Graph) Ingress(p PortID) []PortID {
	lo, hi := g.InStart[p], g.InStart[p+1]
	return g.In[lo:hi:hi]
}

// Egress returns B_e(p): the ports whose source is p's destination, in
// increasing id order (p's reverse port included).
func (g *Graph) Egress(p PortID) []PortID {
	lo, hi := g.OutStart[p], g.OutStart[p+1]
	return g.Out[lo:hi:hi]
}

// buildGraph computes the Graph of f from its per-node port lists.
func (f *Fabric) buildGraph() *Graph {
	np := len(f.Ports)
	g := &Graph{
		Agent:    make([]bool, np),
		InStart:  make([]int32, 0, np+1),
		OutStart: make([]int32, 0, np+1),
	}
	for i, p := range f.Ports {
		g.Agent[i] = f.Nodes[p.Src].Switch
		g.InStart = append(g.InStart, int32(len(g.In)))
		g.In = append(g.In, f.in[p.Src]...)
		g.OutStart = append(g.OutStart, int32(len(g.Out)))
		g.Out = append(g.Out, f.out[p.Dst]...)
	}
	g.InStart = append(g.InStart, int32(len(g.In)))
	g.OutStart = append(g.OutStart, int32(len(g.Out)))
	return g
}
