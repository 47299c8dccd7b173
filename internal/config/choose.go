package config

import "fmt"

// Choice is how a command named its configuration file: --config's
// value, whether --config was given at all, and --no-config.
type Choice struct {
	// Path is --config's value ("" when not given, or given empty).
	Path string
	// Given is true when --config was on the command line.
	Given bool
	// NoConfig is --no-config: no file, not even DefaultFile.
	NoConfig bool
}

// ChoiceError is a Choice that contradicts itself (--config with
// --no-config, or --config with no file): the user's input, where an
// error looking for DefaultFile is the file system's.
type ChoiceError struct{ msg string }

func (e *ChoiceError) Error() string { return e.msg }

// Choose returns the configuration file c names: Path when --config was
// given, none with NoConfig, else DefaultFile when it exists in the
// working directory (Locate). "" is none. When DefaultFile was found
// rather than named, note says so ("Using config.yaml (--no-config
// ignores it)"): it changes run's defaults, so the caller prints it.
func Choose(c Choice) (path, note string, err error) {
	switch {
	case c.NoConfig && c.Given:
		return "", "", &ChoiceError{"--config and --no-config: choose one"}
	case c.Given && c.Path == "":
		return "", "", &ChoiceError{"--config needs a file (use --no-config for none)"}
	case c.Given:
		return c.Path, "", nil
	case c.NoConfig:
		return "", "", nil
	}
	if path, err = Locate(); err != nil || path == "" {
		return "", "", err
	}
	return path, fmt.Sprintf("Using %s (--no-config ignores it)", path), nil
}
