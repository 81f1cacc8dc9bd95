// The engine's one import besides `abort`: how far a fit has got, reported from inside it at step
// boundaries and per bag (docs/reference/tasks.md#events "progress is real"; the P_ codes are in abi.ts). The host forwards it
// to the task's event stream; it never returns anything into the fit, so no number of a fit depends on it.
@external("env", "reportProgress")
export declare function reportProgress(stage: i32, done: i32, total: i32): void;
