//! Linux: the process table from `/proc`, the switches through `prctl`.

use std::collections::BTreeMap;

use super::ProcInfo;

/// One `/proc/PID/stat` line. The command name may contain spaces and parentheses: the fields
/// are read after the last `)`.
pub(super) fn parse_stat(stat: &str) -> Option<ProcInfo> {
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    if fields.len() < 20 {
        return None;
    }
    Some(ProcInfo {
        ppid: fields[1].parse().ok()?,
        pgrp: fields[2].parse().ok()?,
        session: fields[3].parse().ok()?,
        start: fields[19].parse().ok()?,
        zombie: fields[0] == "Z" || fields[0] == "X",
    })
}

pub(super) fn process(pid: i32) -> Option<ProcInfo> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

pub(super) fn processes() -> BTreeMap<i32, ProcInfo> {
    let mut out = BTreeMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some(info) = process(pid) {
            out.insert(pid, info);
        }
    }
    out
}

/// Read from `/proc/self/status`, which leaves it as it is.
pub(super) fn umask() -> u32 {
    status_field("Umask:")
        .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        .unwrap_or(0o022)
}

pub(super) fn forbid_inspection() {
    let _ = nix::sys::prctl::set_dumpable(false);
}

pub(super) fn die_with_parent() -> Result<(), String> {
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL).map_err(|e| e.to_string())
}

pub(super) fn become_subreaper() -> std::io::Result<()> {
    nix::sys::prctl::set_child_subreaper(true).map_err(std::io::Error::from)
}

/// The `SigPnd` (thread) and `ShdPnd` (process) masks of /proc/self/status, bit n-1 for signal n.
pub(super) fn stop_pending() -> bool {
    use nix::sys::signal::Signal::{SIGHUP, SIGINT, SIGTERM};
    let bit = |sig: nix::sys::signal::Signal| 1u64 << (sig as u32 - 1);
    let stops = bit(SIGTERM) | bit(SIGINT) | bit(SIGHUP);
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .filter_map(|l| {
            l.strip_prefix("SigPnd:")
                .or_else(|| l.strip_prefix("ShdPnd:"))
        })
        .filter_map(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .any(|mask| mask & stops != 0)
}

fn status_field(name: &str) -> Option<String> {
    std::fs::read_to_string("/proc/self/status")
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix(name).map(str::to_string))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_after_the_last_parenthesis_of_the_name() {
        let line =
            "4242 (a) b (c)) S 1 4242 4240 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 0 0";
        let info = parse_stat(line).unwrap();
        assert_eq!(
            info,
            ProcInfo {
                ppid: 1,
                pgrp: 4242,
                session: 4240,
                start: 987654,
                zombie: false
            }
        );
        let zombie = line.replace(") S ", ") Z ");
        assert!(parse_stat(&zombie).unwrap().zombie);
        assert_eq!(parse_stat("4242 (cut"), None);
    }

    #[test]
    fn this_process_is_alive_with_a_start_time_and_its_parent() {
        let me = std::process::id() as i32;
        let info = process(me).unwrap();
        assert_eq!(info.ppid, nix::unistd::getppid().as_raw());
        assert!(!info.zombie);
        assert!(processes().contains_key(&me));
    }
}
