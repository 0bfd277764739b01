// Package agentmsg is the wire format of the messages GraphCC's per-switch
// agents exchange (docs/agents.md): one hidden state of one port, for one
// round of one control step, in an Ethernet frame of EtherType 0x88B5 (IEEE
// 802 local experimental ethertype 1). The Message layer decodes and
// serializes it with gopacket, and is registered with gopacket's Ethernet
// decoder so that a frame decodes to Ethernet/AgentMessage.
package agentmsg
