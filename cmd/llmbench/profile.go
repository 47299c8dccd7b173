package main

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole process to the file named
// by LLMBENCH_CPUPROFILE, for finding the client's own cost
// (docs/fidelity.md, "Profiling the client"). It is a developer's switch,
// not a flag: a profile says nothing a user needs and costs some CPU.
func startProfile() (stop func()) {
	path := os.Getenv("LLMBENCH_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "llmbench: LLMBENCH_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
