//! aider: ask mode as a dry run without git, started in an empty scratch directory with the
//! files the subject's facts name given read-only; it prints its receipt as plain text.
//! Everything that is aider's own is here.

use super::{Preset, Unfixable, Usage, unfixable_as};
use crate::sandbox::Agent;

pub(super) const PRESET: Preset = Preset {
    name: "aider",
    program: "aider",
    checked: "0.86.2",
    install: "pipx install aider-chat==0.86.2 (or: python3 -m pip install aider-install && aider-install)",
    // Ask mode and a dry run: no edits, no commits, no git at all. Started in an empty
    // scratch directory, so the repository's `.aider.conf.yml` (its `load:` runs commands)
    // and `.env` (endpoint, model) are not found; the files it needs are given read-only.
    // Its history files go to the turn's out dir; a wide terminal keeps JSON from wrapping.
    argv: &[
        "aider",
        "--chat-mode",
        "ask",
        "--dry-run",
        "--no-git",
        "--no-gitignore",
        "--no-auto-commits",
        "--no-auto-lint",
        "--no-auto-test",
        "--map-tokens",
        "0",
        "--yes-always",
        "--no-suggest-shell-commands",
        "--no-detect-urls",
        "--no-check-update",
        "--no-analytics",
        "--no-show-model-warnings",
        "--no-pretty",
        "--no-stream",
        "--no-fancy-input",
        "--no-notifications",
        "--no-restore-chat-history",
        "--chat-history-file",
        "{out}/aider.chat.history.md",
        "--input-history-file",
        "{out}/aider.input.history",
        "{read_files}",
        "--message-file",
        "{brief}",
    ],
    brief_on_stdin: false,
    wire: None,
    scratch_cwd: true,
    env: &[("COLUMNS", "100000"), ("LINES", "1000")],
    returns: "Return the receipt as your answer: the JSON object alone, on one line, \
        nothing around it. You cannot write files: do not try to write receipt.json.",
    events: None,
    envelope: None,
    usage,
    policy: None,
    reads_files: true,
    agent: Agent {
        state: |home| vec![home.join(".aider")],
        // None: aider reads its keys from the environment.
        reads_repository_ignores: false,
        reads: |home| {
            [
                ".aider.conf.yml",
                ".aider.model.settings.yml",
                ".aider.model.metadata.json",
            ]
            .iter()
            .map(|name| home.join(name))
            .collect()
        },
        credentials: |_| Vec::new(),
        nested: None,
        connects: None,
        variables: VARIABLES,
        hosts,
        // Its configuration files (read-only to it: in HOME) and the keys it loads into its
        // environment at its start (`~/.aider/oauth-keys.env`, written by its OpenRouter login).
        settings: |home| {
            [
                ".aider.conf.yml",
                ".aider.model.settings.yml",
                ".aider.model.metadata.json",
                ".aider/oauth-keys.env",
            ]
            .iter()
            .map(|name| home.join(name))
            .collect()
        },
    },
    unfixable,
};

/// Where aider connects: the providers of its keys above; and the host of each base-URL
/// variable it reads.
const HOSTS: &[&str] = &[
    "api.openai.com",
    "api.anthropic.com",
    "generativelanguage.googleapis.com",
    "openrouter.ai",
    "api.deepseek.com",
    "api.groq.com",
    "api.mistral.ai",
    "api.x.ai",
    "api.cohere.com",
];

fn hosts(_argv: &[String]) -> Vec<crate::sandbox::hosts::Host> {
    use crate::sandbox::hosts;
    let mut allowed = hosts::parse_all(HOSTS.iter().copied());
    allowed.extend(hosts::of_variables(
        &[
            "AIDER_OPENAI_API_BASE",
            "OPENAI_API_BASE",
            "OPENAI_BASE_URL",
            "AZURE_API_BASE",
            "OLLAMA_API_BASE",
        ],
        |v| std::env::var(v).ok(),
    ));
    allowed
}

/// Its failures a retry cannot fix: no key (it then offers to log in to OpenRouter in a
/// browser and waits five minutes for it), and its own usage error (`aider: error: …`).
fn unfixable(line: &str) -> Option<Unfixable> {
    if line.starts_with("No LLM model was specified and no API keys were provided") {
        return unfixable_as(
            line,
            "aider has no API key",
            "set your provider's key variable (`export ANTHROPIC_API_KEY=…`, OPENAI_API_KEY, \
             GEMINI_API_KEY, …; another one: `runner_env` in .interview/config.toml)",
        );
    }
    line.starts_with("aider: error:")
        .then(|| {
            unfixable_as(
                line,
                "aider refused its arguments",
                "check the arguments after `--` against `aider --help`",
            )
        })
        .flatten()
}

/// What aider reads of the environment: its own options (`AIDER_*`), and the keys and base URLs
/// of the providers it talks to through litellm. A provider not listed here is added with
/// `runner_env` in `.interview/config.toml`.
const VARIABLES: &[&str] = &[
    "AIDER_*",
    "OPENAI_API_KEY",
    "OPENAI_API_BASE",
    "OPENAI_BASE_URL",
    "OPENAI_API_TYPE",
    "OPENAI_API_VERSION",
    "OPENAI_ORGANIZATION",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "GROQ_API_KEY",
    "MISTRAL_API_KEY",
    "XAI_API_KEY",
    "COHERE_API_KEY",
    "AZURE_API_KEY",
    "AZURE_API_BASE",
    "AZURE_API_VERSION",
    "OLLAMA_API_BASE",
    "LITELLM_LOCAL_MODEL_COST_MAP",
];

/// aider's `Tokens: 1.2k sent, 50 received. Cost: $0.01 message, $0.02 session.` lines.
pub(super) fn usage(stdout: &str) -> Option<Usage> {
    let mut total = Usage::default();
    for line in stdout.lines() {
        let Some(rest) = line.trim().strip_prefix("Tokens: ") else {
            continue;
        };
        let number = |text: &str| -> Option<u64> {
            let text = text.trim().replace(',', "");
            let (digits, scale) = match text.strip_suffix('k') {
                Some(d) => (d.to_string(), 1000.0),
                None => (text.clone(), 1.0),
            };
            digits
                .parse::<f64>()
                .ok()
                .map(|n| (n * scale).round() as u64)
        };
        let sent = rest.split(" sent").next().and_then(number);
        let received = rest
            .split(", ")
            .nth(1)
            .and_then(|r| r.split(" received").next())
            .and_then(number);
        let cost = rest
            .split("Cost: $")
            .nth(1)
            .and_then(|c| c.split(' ').next())
            .and_then(|c| c.parse::<f64>().ok());
        total.add(&Usage {
            input_tokens: sent,
            output_tokens: received,
            cost_usd: cost,
        });
    }
    Some(total)
}
