package dcqcn

// CompactQueuePairs is the clean-up of a NIC's round robin in HPCC's
// RdmaEgressQueue::GetNextQindex, shared by the simulator and the testbed's
// hosts (hostgen): it removes from qps, in place, every queue pair at index
// fin or after it for which leaves reports true (a finished one; leaves
// does whatever its leaving needs), keeping the others' order, and returns
// the shortened list and where the queue pair at index res (-1: none) is
// then. The round-robin position is not moved, so it shifts.
func CompactQueuePairs(qps []int32, fin, res int, leaves func(q int32) bool) ([]int32, int) {
	nxt := fin
	for i := fin; i < len(qps); i++ {
		q := qps[i]
		if leaves(q) {
			continue
		}
		if i == res {
			res = nxt
		}
		qps[nxt] = q
		nxt++
	}
	return qps[:nxt], res
}
