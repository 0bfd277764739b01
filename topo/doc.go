// Package topo describes datacenter fabrics: nodes (hosts and switches),
// full-duplex links, the directed egress ports they give, shortest-path ECMP
// routing (Crosses: whether a route uses a link), and the agent graph
// that the GraphCC policy runs on.
//
// Times are integer picoseconds and rates are bits per second throughout
// graphcc; the constants below name the units. ParseRate, ParseDelay and
// their Format twins read and write them; ParseDuration and ParseLinkRate
// are those as a setting given under a name (a flag) takes them, and
// ClosSettings is a Clos as a person writes it, checked into a ClosConfig.
package topo
