//! Interviewers: the programs on the other side of the runner protocol that come with the tool.
//! The tool starts each of them as a runner, this executable again (`interview runner builtin`,
//! `interview runner openai`), under the sandbox like any other runner: a brief in, one receipt
//! out. `builtin/` is the deterministic interviewer (the default runner), `model/` the model
//! runner (a conversation with an OpenAI-compatible server).
//!
//! Not for: starting a runner or reading what it left (that is `runner`, then `receipt`). Nothing
//! here knows the session, the guard or the sandbox: an interviewer sees only what a runner sees.

pub(crate) mod builtin;
pub(crate) mod model;
