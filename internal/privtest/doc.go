// Package privtest holds the skips of graphcc's privileged tests: tests
// that need root (network namespaces, veths, packet sockets) or a program
// this machine may lack (BMv2's simple_switch_grpc, p4c-bm2-ss). Such a test
// skips naming what is missing, except on the privileged runner, which sets
// GRAPHCC_REQUIRE_PRIV=1 and has everything: there a missing requirement is
// a failure, so no test passes there by skipping.
package privtest
