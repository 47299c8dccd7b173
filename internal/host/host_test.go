package host

import (
	"runtime"
	"strings"
	"syscall"
	"testing"
)

// TestEnsureFileLimit: a small load fits; a load past the hard limit is
// refused with the need, the limit and the fix.
func TestEnsureFileLimit(t *testing.T) {
	if err := EnsureFileLimit(1); err != nil {
		t.Fatalf("one stream: %v", err)
	}
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Max > 1<<40 {
		t.Skipf("the hard open-file limit is %d: no stream count can pass it", lim.Max)
	}
	streams := int(lim.Max)
	err := EnsureFileLimit(streams)
	fl, ok := err.(*FileLimitError)
	if !ok {
		t.Fatalf("%d streams under a hard limit of %d: err %v, want a *FileLimitError", streams, lim.Max, err)
	}
	if fl.Need != filesNeeded(streams) || fl.Limit != uint64(lim.Max) {
		t.Errorf("need %d limit %d, want %d and %d", fl.Need, fl.Limit, filesNeeded(streams), lim.Max)
	}
	for _, want := range []string{"open-file limit (RLIMIT_NOFILE)", "ulimit -n", "lower the concurrency"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}

// TestClockSync: Linux answers from adjtimex, other systems not at all.
func TestClockSync(t *testing.T) {
	c := ClockSync()
	if runtime.GOOS != "linux" {
		if c != nil {
			t.Errorf("ClockSync = %+v off Linux, want nil", c)
		}
		return
	}
	if c == nil || c.Source != "adjtimex" || c.MaxErrorUS < 0 {
		t.Errorf("ClockSync = %+v, want the kernel's figures", c)
	}
}
