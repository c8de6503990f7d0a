//! The model runner as presets (`openai`, `ollama`): this executable started again as
//! `interview runner NAME`, given the wire schema's rules in the brief, its receipt and usage
//! read from the events it prints (`interviewer/model/events.rs`), its activity from its tool calls. It has no
//! state of its own for the sandbox to grant: it writes nothing.

use std::path::Path;

use super::{Preset, Usage};
use crate::interviewer::model::events::{self, Event};
use crate::protocol::wire::Family;
use crate::receipt::ReceiptError;
use crate::sandbox::Agent;

const RETURNS: &str = "Return the receipt as your final message: the JSON object alone, nothing \
    around it. You cannot write files: do not try to write receipt.json.";

/// No state; the network only to its server's port; of the environment only what it reads
/// (`interviewer/model/mod.rs`: the key, base URL and model).
const fn reads(variables: &'static [&'static str]) -> Agent {
    Agent {
        state: |_| Vec::new(),
        reads_repository_ignores: true,
        reads: |_| Vec::new(),
        credentials: |_| Vec::new(),
        nested: None,
        connects: Some(crate::interviewer::model::ports),
        variables,
        hosts: |argv| {
            crate::interviewer::model::server_url(argv)
                .and_then(|url| crate::sandbox::hosts::Host::of_url(&url))
                .into_iter()
                .collect()
        },
        settings: |_| Vec::new(),
    }
}

/// `--runner openai`: `OPENAI_BASE_URL` (default OpenAI's), `OPENAI_API_KEY`.
pub(super) const OPENAI: Preset = preset(
    "openai",
    &["{self}", "runner", "openai"],
    reads(&["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL"]),
);
/// `--runner ollama`: ollama on this machine, no key.
pub(super) const OLLAMA: Preset = preset(
    "ollama",
    &["{self}", "runner", "ollama"],
    reads(&["OPENAI_MODEL"]),
);

const fn preset(name: &'static str, argv: &'static [&'static str], agent: Agent) -> Preset {
    Preset {
        name,
        program: "interview",
        checked: "",
        install: "",
        argv,
        brief_on_stdin: false,
        wire: Some(Family::OpenAi),
        scratch_cwd: false,
        env: &[],
        returns: RETURNS,
        events: Some(activity),
        envelope: Some(receipt),
        usage,
        policy: None,
        reads_files: false,
        // The model runner says its own failures (interviewer/model/).
        unfixable: |_| None,
        agent,
    }
}

/// The progress line's words for one line the runner printed: a request, or a tool call (its
/// git tools named here, the rest as an agent CLI's tool of the same name).
fn activity(line: &str, _root: &Path) -> Option<String> {
    match Event::parse(line)? {
        Event::Request { .. } => Some("thinking".into()),
        Event::ToolCall { tool, target, .. } => Some(match (tool.as_str(), target.as_str()) {
            ("git_log", "") => "reading the history".to_string(),
            ("git_log", path) => format!("reading the history of {path}"),
            ("git_show", commit) => format!("looking at commit {commit}"),
            ("git_blame", path) => format!("reading who changed {path}"),
            (tool, target) => super::activity::tool_activity(tool, Some(target)),
        }),
        _ => None,
    }
}

/// The receipt's text: the last `receipt` event.
fn receipt(stdout: &str) -> Result<String, ReceiptError> {
    events::receipt(stdout).ok_or_else(|| {
        ReceiptError::Invalid(
            "the model runner printed no JSON receipt (see its reason on stderr)".into(),
        )
    })
}

/// The turn's tokens and cost: the last `usage` event.
fn usage(stdout: &str) -> Option<Usage> {
    events::all(stdout).into_iter().rev().find_map(|e| match e {
        Event::Usage {
            input_tokens,
            output_tokens,
            cost_usd,
            ..
        } => Some(Usage {
            input_tokens,
            output_tokens,
            cost_usd,
        }),
        _ => None,
    })
}
