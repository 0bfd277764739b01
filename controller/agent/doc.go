// Package agent runs the testbed's per-switch GraphCC agents
// (docs/agents.md): Run is one switch's agent, which reads only its own
// switch's counters, exchanges hidden states with its neighbours' agents
// in-band (agentmsg frames as P4Runtime PacketOuts on the ports they
// describe, PacketIns at the neighbour), K rounds per step with a deadline
// each, and writes only its own ECN entries; DialSwitch is its P4Runtime
// switch. Processes starts one agent process per switch of a lab and
// shadows them with the central step (Shadow), as controller.Agents. A
// floored policy's agents hold to its fixed base (Floor, Config.Floor),
// which reaches the processes as a file (WriteFloor, ReadFloor).
package agent
