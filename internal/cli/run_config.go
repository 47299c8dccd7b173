package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configFlags are the project-configuration flags of "llmbench run".
type configFlags struct{}

// bindConfigFlags declares --config, --course, --print-command.
func bindConfigFlags(fs *pflag.FlagSet, o *runOptions) {}

// resolveConfig applies config.yaml, --course and the arguments after "--"
// to o's flags (defaults < config file < flags < args after --). done is
// true when nothing more should happen (--print-command printed).
func (o *runOptions) resolveConfig(cmd *cobra.Command, args []string, env *Env) (done bool, err error) {
	if len(args) > 0 {
		return false, usageErrorf("unexpected arguments %q (flags after -- need the project configuration support)", args)
	}
	return false, nil
}
