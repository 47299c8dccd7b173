// Package bench is one benchmark step as a pipeline of short phases —
// plan, execute, summarize — that `llmbench run` calls once and `sweep`
// (and, later, calibrate and workers) call once per step with another
// load. The command line builds a Plan (every flag resolved once); Execute
// runs the ready check, the warm-ups and the timed run, handing each
// record to the step's Sink as it completes; Summarize turns the records
// into metrics. Rendering and saving belong to the callers.
//
// The files follow one step:
//
//   - settings.go: the checks and derivations of a run's settings on
//     their way into a Spec (Ranges, ClosedLoop, DescribeLoad);
//   - plan.go, share.go: the Plan, and a worker's share of it;
//   - execute.go: Execute, the Hooks and the Outcome;
//   - execution.go: what every executor shares — ready check, warm-ups,
//     sending under the request timeout, the grace period of an
//     interrupt, and collect, which hands each record to the Sink;
//   - one file per executor, as k6's lib/executor: openloop.go (requests
//     on the arrival schedule), users.go (closed-loop users),
//     conversations.go (multi-turn replay);
//   - torecord.go: what a backend observed, turned into a record;
//   - sink.go: the Sink interface and its fan-out, Sinks;
//   - selfcheck.go, abort.go: the client's judgement of itself, and the
//     early stop of a misconfigured step;
//   - summarize.go: the metrics of the records;
//   - verdict.go: a finished run's judgement of itself (Judge), which
//     the command line maps to an exit code.
//
// Pacing and dispatch (the schedule, the dispatcher, the users' loop) are
// internal/load's; sending is the backend's. bench knows nothing of flag
// parsing or output formats: settings.go takes typed values, and only
// its messages use the command line's words, the words a user typed.
package bench
