package cli

import "strconv"

// selfTimedFlag is one side of vLLM's --self-timed / --no-self-timed pair
// (argparse's BooleanOptionalAction): either flag sets the shared tri-state
// *dst (nil = the dataset's default), --no-self-timed to the negation.
type selfTimedFlag struct {
	dst    **bool
	negate bool
}

func (f selfTimedFlag) String() string {
	if *f.dst == nil {
		return ""
	}
	return strconv.FormatBool(**f.dst != f.negate)
}

func (f selfTimedFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	v = v != f.negate
	*f.dst = &v
	return nil
}

func (f selfTimedFlag) Type() string { return "bool" }
