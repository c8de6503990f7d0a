//! `interview runners`: the runner presets, whether each is installed, and what each runs; then
//! what the sandbox enforces on this machine (docs/sandbox.md). As text or (`--json`) as one
//! JSON document.

use std::path::Path;

use crate::error::{Error, Result};
use crate::runner::presets::{
    PRESETS, VERSION_TIMEOUT, drift, find_on_path, render_list, version_of,
};
use crate::sandbox::{StateGrant, Support, agent, env};

/// Print the report; returns the exit code. A program inside the repository around `cwd` (or
/// `cwd` itself outside one) is never found, as the run would never start it.
pub(super) fn run(cwd: &Path, json: bool) -> Result<i32> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let repository = super::discover(cwd)
        .map(|r| r.worktree)
        .unwrap_or_else(|_| cwd.to_path_buf());
    let support = Support::probe();
    if json {
        let builtin = serde_json::json!({
            "name": "builtin",
            "embedded": true,
            "version": env!("CARGO_PKG_VERSION"),
            "argv": ["interview", "runner", "builtin"],
            "variables": [],
        });
        let external = PRESETS.iter().map(|p| {
            let found = find_on_path(p.program, &path, &repository);
            let version = found.as_ref().map(|f| version_of(f, VERSION_TIMEOUT));
            let state = agent::state_dirs(Some(&p.agent));
            let grant = StateGrant::decide(&support, Some(&p.agent), &p.argv(), &state);
            serde_json::json!({
                "name": p.name,
                "embedded": false,
                "program": p.program,
                "installed": found.as_ref().map(|f| f.display().to_string()),
                "version": version,
                "verified_with": p.checked,
                "drift": version.as_deref().and_then(|v| drift(p, v)),
                "argv": p.argv(),
                // As the sandbox grants it on this machine (`--sandbox auto`); without
                // Landlock or namespaces (Seatbelt on macOS) no write outside the
                // repository is refused: null.
                "writable_state": (support.confines_writes() || support.namespaces)
                    .then_some(&grant.kept),
                // Without a mount namespace, its configuration files: put back after the turn.
                "throwaway_state": grant.throwaway.iter().chain(&grant.restored).collect::<Vec<_>>(),
                // Besides the base set (`.sandbox.base_variables`); names, never values.
                "variables": p.agent.variables,
                // Reached through the sandbox's proxy (with `allow_hosts`).
                "hosts": crate::runner::presets::hosts_of(p),
            })
        });
        let model = crate::interviewer::model::describe_json()
            .into_iter()
            .map(|mut runner| {
                let preset = runner["name"]
                    .as_str()
                    .and_then(crate::runner::presets::preset);
                runner["variables"] =
                    serde_json::json!(preset.map_or(&[][..], |p| p.agent.variables));
                runner["hosts"] = serde_json::json!(preset.map(crate::runner::presets::hosts_of));
                runner
            });
        // In the order the text lists them: the embedded runners first.
        let runners: Vec<serde_json::Value> = std::iter::once(builtin)
            .chain(model)
            .chain(external)
            .collect();
        let doc = serde_json::json!({
            "runners": runners,
            "sandbox": sandbox_json(&support),
        });
        let text = serde_json::to_string_pretty(&doc)
            .map_err(|e| Error::json("cannot write the report as JSON", e))?;
        crate::output::stdout_line(&text)?;
    } else {
        crate::output::stdout(&render_list(&path, &repository, VERSION_TIMEOUT))?;
        crate::output::stdout(&sandbox_text(&support))?;
    }
    Ok(0)
}

fn sandbox_json(s: &Support) -> serde_json::Value {
    serde_json::json!({
        "platform": std::env::consts::OS,
        "landlock": s.landlock_abi.is_some(),
        "landlock_abi": s.landlock_abi,
        "landlock_missing": s.landlock_missing,
        "scoped_signals_and_sockets": s.scoped(),
        "namespaces": s.namespaces,
        "namespaces_missing": s.namespaces_missing,
        "seccomp": s.seccomp,
        "seccomp_missing": s.seccomp_missing,
        "seatbelt": s.seatbelt,
        "seatbelt_missing": s.seatbelt_missing,
        "summary": s.summary(),
        "base_variables": env::BASE,
        "removed_variables": env::SERVER_HANDLES,
        "hidden_credentials": {
            "system": crate::sandbox::secrets::SYSTEM,
            "in_home": crate::sandbox::secrets::IN_HOME,
            "moved_by": crate::sandbox::secrets::MOVED_BY
                .iter()
                .map(|(var, file)| match file {
                    Some(file) => format!("${var}/{file}"),
                    None => format!("${var}"),
                })
                .collect::<Vec<_>>(),
            "hidden": s.hides_credentials(),
        },
    })
}

fn sandbox_text(s: &Support) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let mut out = String::from(
        "\nSandbox on this machine (--sandbox auto|require|landlock-only|off, see docs/sandbox.md):\n",
    );
    if cfg!(target_os = "macos") {
        out.push_str(&format!(
            "  Seatbelt (sandbox-exec)   {}\n",
            if s.seatbelt {
                "yes".to_string()
            } else {
                format!(
                    "no ({})",
                    s.seatbelt_missing.as_deref().unwrap_or("not available")
                )
            }
        ));
        out.push_str(&format!("  enforced                  {}\n", s.summary()));
        return out;
    }
    out.push_str(&format!(
        "  Landlock                  {}\n",
        match (s.landlock_abi, &s.landlock_missing) {
            (Some(abi), _) => format!("yes, ABI {abi}"),
            (None, why) => format!("no ({})", why.as_deref().unwrap_or("not available")),
        }
    ));
    out.push_str(&format!(
        "  signal and socket scope   {}\n",
        yes_no(s.scoped())
    ));
    out.push_str(&format!(
        "  PID and mount namespaces  {}\n",
        if s.namespaces {
            "yes".to_string()
        } else {
            format!(
                "no ({})",
                s.namespaces_missing.as_deref().unwrap_or("not allowed")
            )
        }
    ));
    out.push_str(&format!(
        "  seccomp filter            {}\n",
        if s.seccomp {
            "yes".to_string()
        } else {
            format!(
                "no ({})",
                s.seccomp_missing.as_deref().unwrap_or("not available")
            )
        }
    ));
    out.push_str(&format!(
        "  credential stores hidden  {}\n",
        if s.hides_credentials() {
            format!(
                "yes, {} paths (~/.ssh, ~/.aws, ~/.netrc, ~/.config/gh, other CLIs' logins, /etc/shadow, …; \
                 `--json` lists them)",
                crate::sandbox::secrets::SYSTEM.len()
                    + crate::sandbox::secrets::IN_HOME.len()
                    + crate::sandbox::secrets::MOVED_BY.len()
            )
        } else {
            "no (needs a mount namespace, Landlock or Seatbelt): a runner can read them".to_string()
        }
    ));
    out.push_str(&format!("  enforced                  {}\n", s.summary()));
    out
}
