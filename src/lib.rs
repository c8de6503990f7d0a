//! `interview`: an AI agent interviews a person about a repository, one turn at a time, and the
//! tool guarantees the agent changed nothing.
//!
//! Data flows one way: subject → brief → runner → receipt → questions → answers → next brief →
//! document, with the guard wrapped around each runner call.

pub mod answer;
pub mod ask;
pub mod atomic;
pub mod brief;
pub mod cli;
pub mod command;
pub mod config;
pub mod decision;
pub mod document;
pub mod error;
pub mod guard;
pub mod input;
pub mod markdown;
pub mod output;
pub mod own_writes;
pub mod process;
pub mod protocol;
pub mod receipt;
pub mod runner;
pub mod sandbox;
pub mod session;
pub mod signals;
pub mod subject;
pub mod sys;
pub mod telemetry;

pub use error::{Error, Result};
