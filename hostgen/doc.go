// Package hostgen is the testbed's hosts: RoCEv2-like senders and receivers
// on raw sockets. This file is the InfiniBand Base Transport Header as a
// gopacket layer, carried in UDP to port 4791 as RoCEv2 does.
package hostgen
