package p4rt

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	"graphcc/controller/lab"
	"graphcc/p4src"
)

// Connect dials every switch of the live lab lb, laid out by plan, inside
// its namespace as the primary controller of election electionID, and
// returns the Fabric over them, its queue depths set from the lab's state
// (so that only the depth buckets that can count are read), and a function
// that closes the clients. On an error every client dialled is closed.
func Connect(ctx context.Context, lb *lab.Lab, plan *lab.Plan, info *P4Info, electionID uint64) (*Fabric, func(), error) {
	var sws []*Switch
	closeAll := func() {
		for _, s := range sws {
			s.Close()
		}
	}
	for i, sp := range plan.Switches {
		s, err := Dial(ctx, sp.Name, lab.GRPCAddr, sp.DeviceID, electionID,
			grpc.WithContextDialer(lb.Dialer(i)))
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		sws = append(sws, s)
	}
	rt, err := NewFabric(plan, info, sws)
	if err == nil {
		var depth []int64
		if depth, err = lb.State().QueueDepths(len(plan.Fabric.Ports)); err == nil {
			err = rt.SetQueueDepths(depth)
		}
	}
	if err != nil {
		closeAll()
		return nil, nil, err
	}
	return rt, closeAll, nil
}

// BuiltinPipeline returns the P4Info and the BMv2 JSON of the P4 program
// built into the binary (package p4src), the P4Info resolved.
func BuiltinPipeline() (*P4Info, []byte, error) {
	info, err := ParseP4Info(p4src.P4Info)
	if err != nil {
		return nil, nil, fmt.Errorf("built-in P4Info: %w", err)
	}
	return info, p4src.BMv2JSON, nil
}
