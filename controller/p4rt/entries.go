package p4rt

import (
	"fmt"
	"math"
	"slices"

	p4v1 "github.com/p4lang/p4runtime/go/p4/v1"

	"graphcc/control"
	"graphcc/controller/lab"
	"graphcc/p4src"
)

// This file builds the table entries of graphcc.p4 for one switch of a
// lab.Plan: pure functions, no switch needed. Entries are returned in the
// order they are best written (ECMP members before the routes that use
// them).

// InitialEntries returns every entry switch sw (index into p.Switches)
// starts with: forwarding, the depth-histogram buckets and the ECN setting
// of each of its ports from ecn (indexed by topo.PortID). Write them as
// INSERTs (Updates) after pushing the pipeline.
func InitialEntries(info *P4Info, p *lab.Plan, sw int, ecn []control.ECN) ([]*p4v1.TableEntry, error) {
	fwd, err := ForwardingEntries(info, p, sw)
	if err != nil {
		return nil, err
	}
	ecnEntries, err := ECNEntries(info, p, sw, ecn)
	if err != nil {
		return nil, err
	}
	entries := append(fwd, DepthBucketEntries(info)...)
	return append(entries, ecnEntries...), nil
}

// Updates wraps entries into updates of one type, for one WriteRequest:
// INSERT for the initial program, MODIFY for changed ECN settings.
func Updates(typ p4v1.Update_Type, entries []*p4v1.TableEntry) []*p4v1.Update {
	u := make([]*p4v1.Update, len(entries))
	for i, e := range entries {
		u[i] = &p4v1.Update{Type: typ, Entity: &p4v1.Entity{Entity: &p4v1.Entity_TableEntry{TableEntry: e}}}
	}
	return u
}

// ForwardingEntries returns switch sw's IPv4 forwarding: one ipv4_route
// entry per reachable destination host (its address /32), to the one egress
// port f.NextHops gives or else to an ECMP group over them; and the
// ecmp_group members of every group, one group per distinct set of ports
// (ids from 1, members in port number order). Ports are the lab.Plan's BMv2
// port numbers. Hosts the switch cannot reach get no entry: the table's
// miss drops.
func ForwardingEntries(info *P4Info, p *lab.Plan, sw int) ([]*p4v1.TableEntry, error) {
	s := &p.Switches[sw]
	groups := make(map[string]uint64)
	var members, routes []*p4v1.TableEntry
	nums := make([]uint32, 0, len(s.Ports))
	for _, h := range p.Hosts {
		hops := p.Fabric.NextHops(s.Node, h.Node)
		if len(hops) == 0 {
			continue
		}
		nums = nums[:0]
		for _, port := range hops {
			osw, k, ok := p.SwitchPort(port)
			if !ok || osw != sw {
				return nil, fmt.Errorf("switch %s: next hop %d to host %s is not one of its ports", s.Name, port, h.Name)
			}
			nums = append(nums, s.Ports[k].Num)
		}
		slices.Sort(nums)
		var act *p4v1.Action
		if len(nums) == 1 {
			act = action(info.SetPort, param(info.ParamPort, uint64(nums[0])))
		} else {
			key := fmt.Sprint(nums)
			g, ok := groups[key]
			if !ok {
				g = uint64(len(groups)) + 1
				if g > math.MaxUint16 || len(nums) > math.MaxUint16 {
					return nil, fmt.Errorf("switch %s: ECMP group %d of %d ports does not fit 16 bits", s.Name, g, len(nums))
				}
				groups[key] = g
				for i, n := range nums {
					members = append(members, &p4v1.TableEntry{
						TableId: info.ECMPGroup,
						Match: []*p4v1.FieldMatch{
							exact(info.FieldGroup, g),
							exact(info.FieldMember, uint64(i)),
						},
						Action: tableAction(action(info.SetPort, param(info.ParamPort, uint64(n)))),
					})
				}
			}
			act = action(info.SetGroup, param(info.ParamGroup, g), param(info.ParamGroupSize, uint64(len(nums))))
		}
		ip := h.IP.As4()
		routes = append(routes, &p4v1.TableEntry{
			TableId: info.IPv4Route,
			Match: []*p4v1.FieldMatch{{
				FieldId:        info.FieldDstAddr,
				FieldMatchType: &p4v1.FieldMatch_Lpm{Lpm: &p4v1.FieldMatch_LPM{Value: EncodeUint(uint64(ip[0])<<24 | uint64(ip[1])<<16 | uint64(ip[2])<<8 | uint64(ip[3])), PrefixLen: 32}},
			}},
			Action: tableAction(act),
		})
	}
	return append(members, routes...), nil
}

// DepthBucketEntries returns the depth_bucket table: bucket b matches
// enq_qdepth in [control.DepthLow(b), control.DepthLow(b+1)-1], the last
// bucket every depth from control.DepthLow(DepthBuckets-1) up, so the P4
// histogram is control.DepthHist by construction. Range entries need a
// priority; the ranges are disjoint, so any distinct ones do.
func DepthBucketEntries(info *P4Info) []*p4v1.TableEntry {
	entries := make([]*p4v1.TableEntry, control.DepthBuckets)
	for b := range entries {
		lo, hi := uint64(control.DepthLow(b)), uint64(control.DepthLow(b+1)-1)
		if b == control.DepthBuckets-1 {
			hi = 1<<p4src.DepthBits - 1
		}
		entries[b] = &p4v1.TableEntry{
			TableId: info.DepthBucket,
			Match: []*p4v1.FieldMatch{{
				FieldId:        info.FieldEnqQdepth,
				FieldMatchType: &p4v1.FieldMatch_Range_{Range: &p4v1.FieldMatch_Range{Low: EncodeUint(lo), High: EncodeUint(hi)}},
			}},
			Action:   tableAction(action(info.SetDepthBucket, param(info.ParamBucket, uint64(b)))),
			Priority: int32(control.DepthBuckets - b),
		}
	}
	return entries
}

// ECNParams is a control.ECN in graphcc.p4's set_ecn parameters: kmin and
// kmax in bytes (32 bits) and pmax as a fraction of p4src.PMaxOne.
type ECNParams struct {
	KMin, KMax uint32
	PMax       uint32 // 0..p4src.PMaxOne
}

// EncodeECN validates e and converts it to set_ecn parameters; pmax is
// rounded to the nearest multiple of 2^-16.
func EncodeECN(e control.ECN) (ECNParams, error) {
	if err := e.Validate(); err != nil {
		return ECNParams{}, err
	}
	if e.KMax > math.MaxUint32 {
		return ECNParams{}, fmt.Errorf("ecn: kmax %d bytes does not fit %d bits", e.KMax, p4src.KBytesBits)
	}
	return ECNParams{
		KMin: uint32(e.KMin),
		KMax: uint32(e.KMax),
		PMax: uint32(math.Round(e.PMax * p4src.PMaxOne)),
	}, nil
}

// ECNEntry returns the ecn_settings entry of BMv2 port num.
func ECNEntry(info *P4Info, num uint32, e ECNParams) *p4v1.TableEntry {
	return &p4v1.TableEntry{
		TableId: info.ECNSettings,
		Match:   []*p4v1.FieldMatch{exact(info.FieldEgressPort, uint64(num))},
		Action: tableAction(action(info.SetECN,
			param(info.ParamKMin, uint64(e.KMin)),
			param(info.ParamKMax, uint64(e.KMax)),
			param(info.ParamPMax, uint64(e.PMax)))),
	}
}

// ECNEntries returns the ecn_settings entries of every port of switch sw,
// from ecn indexed by topo.PortID. A setting that is invalid or does not
// fit the P4 widths is an error naming the port.
func ECNEntries(info *P4Info, p *lab.Plan, sw int, ecn []control.ECN) ([]*p4v1.TableEntry, error) {
	return ECNChanges(info, p, sw, nil, ecn)
}

// ECNChanges returns the ecn_settings entries of switch sw's ports whose
// setting in cur differs from old once encoded (a nil old counts every
// port as changed): write them as MODIFYs. Both are indexed by topo.PortID.
func ECNChanges(info *P4Info, p *lab.Plan, sw int, old, cur []control.ECN) ([]*p4v1.TableEntry, error) {
	s := &p.Switches[sw]
	if len(cur) != len(p.Fabric.Ports) || old != nil && len(old) != len(p.Fabric.Ports) {
		return nil, fmt.Errorf("switch %s: ECN settings for %d and %d ports, the fabric has %d", s.Name, len(old), len(cur), len(p.Fabric.Ports))
	}
	var entries []*p4v1.TableEntry
	for _, pp := range s.Ports {
		if err := checkSlot(s, pp); err != nil {
			return nil, err
		}
		e, err := EncodeECN(cur[pp.Port])
		if err != nil {
			return nil, fmt.Errorf("switch %s port %s (%d): %w", s.Name, pp.Iface, pp.Port, err)
		}
		if old != nil {
			if o, err := EncodeECN(old[pp.Port]); err == nil && o == e {
				continue
			}
		}
		entries = append(entries, ECNEntry(info, pp.Num, e))
	}
	return entries, nil
}

// checkSlot reports a port whose number the P4 program's per-port tables
// and counters do not cover.
func checkSlot(s *lab.SwitchPlan, pp lab.PortPlan) error {
	if pp.Num >= p4src.PortSlots {
		return fmt.Errorf("switch %s port %s: BMv2 port number %d is beyond the %d graphcc.p4 counts", s.Name, pp.Iface, pp.Num, p4src.PortSlots)
	}
	return nil
}

func exact(field uint32, v uint64) *p4v1.FieldMatch {
	return &p4v1.FieldMatch{FieldId: field, FieldMatchType: &p4v1.FieldMatch_Exact_{Exact: &p4v1.FieldMatch_Exact{Value: EncodeUint(v)}}}
}

func param(id uint32, v uint64) *p4v1.Action_Param {
	return &p4v1.Action_Param{ParamId: id, Value: EncodeUint(v)}
}

func action(id uint32, params ...*p4v1.Action_Param) *p4v1.Action {
	return &p4v1.Action{ActionId: id, Params: params}
}

func tableAction(a *p4v1.Action) *p4v1.TableAction {
	return &p4v1.TableAction{Type: &p4v1.TableAction_Action{Action: a}}
}
