package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
)

// startProfile writes a CPU profile of the whole process to the file named
// by LLMBENCH_CPUPROFILE, and every allocation's site to the file named by
// LLMBENCH_ALLOCPROFILE, for finding the client's own cost
// (docs/fidelity.md, "Profiling the client"). They are developer's
// switches, not flags: a profile says nothing a user needs and costs CPU.
func startProfile() (stop func()) {
	stopCPU := profileCPU(os.Getenv("LLMBENCH_CPUPROFILE"))
	allocPath := os.Getenv("LLMBENCH_ALLOCPROFILE")
	if allocPath != "" {
		runtime.MemProfileRate = 1 // every allocation, not a sample
	}
	return func() {
		stopCPU()
		if allocPath != "" {
			writeAllocs(allocPath)
		}
	}
}

func profileCPU(path string) (stop func()) {
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

func writeAllocs(path string) {
	runtime.GC() // the profile counts allocations up to the last collection
	f, err := os.Create(path)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "llmbench: LLMBENCH_ALLOCPROFILE: %v\n", err)
	}
}
