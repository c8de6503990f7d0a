//! Runners: dispatch of any runner program, presets, and the built-in interviewer.

pub mod builtin;
