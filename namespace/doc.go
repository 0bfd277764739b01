// Package namespace runs code inside Linux network namespaces, for the
// testbed's lab (package controller/lab, which builds the namespaces and
// starts switches in them) and its hosts (which open packet sockets in
// them).
//
// A network namespace belongs to an OS thread, not to a goroutine, so every
// function here runs its callback on a locked thread that has entered the
// namespace and puts the thread back afterwards. If putting it back fails,
// the thread stays locked and the runtime discards it with its goroutine
// instead of reusing a thread in the wrong namespace (the approach of
// cilium/ebpf's and containernetworking's netns helpers).
package namespace
