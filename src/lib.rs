//! `interview`: an AI agent interviews a person about a repository, one turn at a time, and the
//! tool guarantees the agent changed nothing.
//!
//! Data flows one way: subject → brief → runner → receipt → questions → answers → next brief →
//! document, with the guard wrapped around each runner call.

pub(crate) mod answer;
pub(crate) mod ask;
pub(crate) mod atomic;
pub(crate) mod brief;
pub(crate) mod cli;
pub(crate) mod command;
pub(crate) mod config;
pub(crate) mod decision;
pub(crate) mod document;
pub(crate) mod error;
pub(crate) mod guard;
pub(crate) mod input;
pub(crate) mod interviewer;
pub(crate) mod markdown;
pub(crate) mod output;
pub(crate) mod own_writes;
pub(crate) mod process;
pub(crate) mod protocol;
pub(crate) mod receipt;
pub(crate) mod runner;
pub(crate) mod sandbox;
pub(crate) mod session;
pub(crate) mod signals;
pub(crate) mod subject;
pub(crate) mod sys;
pub(crate) mod telemetry;
#[doc(hidden)]
pub mod testing;

pub use command::main;
pub(crate) use error::Error;
