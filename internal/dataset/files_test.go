package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesNonRegularFiles: /dev/zero (which grew to 24 GB), a FIFO
// (whose open would block) and a folder are refused at once with one line
// saying why, for every dataset that reads a file.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"/dev/zero": "character device", fifo: "FIFO"}
	for _, name := range []string{ShareGPT, Custom, HF} {
		for path, kind := range paths {
			t.Run(name+" "+path, func(t *testing.T) {
				t.Parallel()
				cfg := DefaultConfig()
				cfg.Name, cfg.Path, cfg.NumPrompts = name, path, 1
				done := make(chan error, 1)
				go func() { _, _, err := Load(t.Context(), cfg, nil); done <- err }()
				select {
				case err := <-done:
					if err == nil || !strings.Contains(err.Error(), "is not a regular file ("+"a "+kind) || strings.Contains(err.Error(), "\n") {
						t.Errorf("error = %v", err)
					}
				case <-time.After(time.Minute):
					t.Fatal("loading did not return")
				}
			})
		}
	}
}

// TestLoadCanceledBeforeReading: a cancelled context stops loading before
// the file is read (a sparse 64 GiB file stands for a huge one).
func TestLoadCanceledBeforeReading(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "huge.json")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(64 << 30); err != nil {
		f.Close()
		t.Skipf("no sparse file here: %v", err)
	}
	f.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, name := range []string{ShareGPT, Custom, HF} {
		cfg := DefaultConfig()
		cfg.Name, cfg.Path, cfg.NumPrompts = name, path, 1
		if _, _, err := Load(ctx, cfg, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error = %v, want context.Canceled", name, err)
		}
	}
}

// TestCtxFileStopsMidRead: reads after a cancellation fail with the
// context's error, so a signal stops a long read within one read.
func TestCtxFileStopsMidRead(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, make([]byte, 3<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	f, err := openDataFile(ctx, path, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 8<<20)
	if n, err := f.Read(buf); err != nil || n != 1<<20 {
		t.Fatalf("first read: %d, %v; want one bounded read of 1 MiB", n, err)
	}
	cancel()
	if _, err := f.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v", err)
	}
}

// TestEntryCap: one entry over MaxEntryBytes is refused with its line
// (JSONL) or skipped with a warning (a ShareGPT turn), before any
// tokenizing.
func TestEntryCap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := strings.Repeat("x", MaxEntryBytes+1)
	jsonl := filepath.Join(dir, "c.jsonl")
	if err := os.WriteFile(jsonl, []byte(`{"prompt":"ok"}`+"\n"+`{"prompt":"`+big+`"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Name, cfg.Path, cfg.NumPrompts = Custom, jsonl, 1
	if _, _, err := Load(t.Context(), cfg, nil); err == nil || !strings.Contains(err.Error(), "c.jsonl:2: line longer than 32 MiB") {
		t.Errorf("custom: %v", err)
	}
	sg := filepath.Join(dir, "sg.json")
	ok := `{"conversations":[{"from":"human","value":"` + strings.Repeat("hello ", 20) + `"},{"from":"gpt","value":"` + strings.Repeat("fine ", 20) + `"}]}`
	huge := `{"conversations":[{"from":"human","value":"` + big + `"},{"from":"gpt","value":"y"}]}`
	if err := os.WriteFile(sg, []byte("["+huge+","+ok+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg.Name, cfg.Path, cfg.NumPrompts = ShareGPT, sg, 1
	cfg.DisableShuffle = true
	reqs, warns, err := Load(t.Context(), cfg, nil)
	if err != nil || len(reqs) != 1 || !strings.Contains(strings.Join(warns, "\n"), "1 conversation(s) skipped: a turn longer than 32 MiB") {
		t.Errorf("sharegpt: %d requests, warnings %q, err %v", len(reqs), warns, err)
	}
}
