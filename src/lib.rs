//! `interview`: an AI agent interviews a person about a repository, one turn at a time, and the
//! tool guarantees the agent changed nothing.
//!
//! Data flows one way: subject → brief → runner → receipt → questions → answers → next brief →
//! document, with the guard wrapped around each runner call.

pub mod answer;
pub mod ask;
pub(crate) mod atomic;
pub mod brief;
pub mod cli;
pub mod command;
pub(crate) mod config;
pub(crate) mod decision;
pub mod document;
pub mod error;
pub mod guard;
pub(crate) mod input;
pub mod interviewer;
pub(crate) mod markdown;
pub mod output;
pub(crate) mod own_writes;
pub(crate) mod process;
pub mod protocol;
pub mod receipt;
pub(crate) mod runner;
pub mod sandbox;
pub(crate) mod session;
pub(crate) mod signals;
pub mod subject;
pub mod sys;
pub(crate) mod telemetry;

pub use error::{Error, Result};
