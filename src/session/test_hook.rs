//! A hook for the resume tests, compiled only into debug builds or with the `test-hooks`
//! feature: never into a release binary.
//!
//! `INTERVIEW_TEST_PAUSE=<sub-step>@<turn>` makes the tool stop still at that point (after saving
//! the state), touching `INTERVIEW_TEST_PAUSE_MARK`, until it is killed.

use super::state::SubStep;

pub(super) fn pause(step: SubStep, turn: u32) {
    pause_at(super::history::sub_step_word(step), turn);
}

/// Pause at a named point (a sub-step, or `answered` / `gate_skipped` right after such a step
/// of the questions was saved, or `round_end` once a round is over and before the next turn is
/// saved).
#[cfg(any(debug_assertions, feature = "test-hooks"))]
pub(super) fn pause_at(point: &str, turn: u32) {
    let Ok(spec) = std::env::var("INTERVIEW_TEST_PAUSE") else {
        return;
    };
    let want = format!("{point}@{turn}");
    if spec != want {
        return;
    }
    if let Ok(mark) = std::env::var("INTERVIEW_TEST_PAUSE_MARK") {
        let _ = std::fs::write(mark, &want);
    }
    loop {
        std::thread::sleep(std::time::Duration::from_secs(1));
    }
}

#[cfg(not(any(debug_assertions, feature = "test-hooks")))]
#[inline(always)]
pub(super) fn pause_at(_point: &str, _turn: u32) {}
