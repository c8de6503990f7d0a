//! The one integration-test binary: the real `interview` executable against temporary git
//! repositories. One module per area.

mod util;

mod answers;
mod architecture;
mod ask;
mod builtin;
mod ci_loop;
mod ci_replay;
mod config_values;
#[cfg(target_os = "linux")]
mod descriptors;
mod docs_as_written;
#[cfg(target_os = "linux")]
mod durability;
mod finish;
mod first_contact;
mod first_run;
mod from_stdin;
mod guard;
#[cfg(target_os = "linux")]
mod guard_access;
mod guard_git_dir;
mod guard_metadata;
mod guard_safety;
mod guard_shared_objects;
mod hostile_text;
mod interviewer;
mod interviewer_absence;
mod interviewer_answered;
mod interviewer_decisions;
mod interviewer_declared;
mod interviewer_devset;
mod interviewer_findings;
mod interviewer_first_round;
mod interviewer_hidden_sections;
mod interviewer_nearest;
mod interviewer_precision;
mod interviewer_premises;
mod interviewer_replies;
mod interviewer_reports;
mod interviewer_shape;
mod interviewer_steps;
mod interviewer_support;
mod interviewer_traces;
mod interviewer_usage;
mod interviewer_versions;
mod interviewer_wish;
mod kill_windows;
mod model_reads;
mod model_receipt;
mod model_runner;
mod model_stream;
mod own_writes;
mod presets;
mod presets_e2e;
mod printed_receipt;
mod progress;
mod random_kills;
mod raw_documents;
mod reflect_crosscheck;
mod reflect_facts;
mod reflect_history;
mod reliability;
mod reliability_tail;
mod replay;
mod resume;
#[cfg(target_os = "linux")]
mod sandbox;
#[cfg(target_os = "linux")]
mod sandbox_env;
#[cfg(target_os = "linux")]
mod sandbox_login;
#[cfg(target_os = "linux")]
mod sandbox_net;
#[cfg(target_os = "linux")]
mod sandbox_plants;
#[cfg(target_os = "linux")]
mod sandbox_secrets;
#[cfg(target_os = "linux")]
mod sandbox_signals;
#[cfg(target_os = "linux")]
mod sandbox_state;
#[cfg(target_os = "linux")]
mod sandbox_wall;
#[cfg(target_os = "linux")]
mod sandbox_world;
mod shared_settings;
mod status;
mod subject;
mod subject_trackers;
mod terminal;
mod tier_files;
mod turn_loop;
mod unfixable;
mod widths;
