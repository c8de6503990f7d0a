//! Random kill -9s while a person types at a real terminal: every interview, resumed after each
//! kill until it ends, writes the very document an uninterrupted one writes, with every answer.
//!
//! A resume never asks a decision (`--yes` leaves only the overwrite decision to ask, and a
//! resume after the document was written must know it as its own), and no killed write leaves
//! a temporary file behind. The offsets come from a seeded generator; the seed is printed, and
//! `INTERVIEW_KILL_SEED=N` runs the same offsets again. `INTERVIEW_KILLS=N` asks for more kills
//! than the default 30.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use expectrl::{Expect, Regex};

use crate::util::{DOCUMENT, Interview, Pty, TempRepo};

/// What the person types at each prompt the fast honest runner brings up.
const PROMPTS: &str = r"(\[Y\] Answer questions now|Where will this service run\?|Who uses the export\?|Which encodings must be supported\?|Choose A, B or C)";

/// What the person types, by script: 0 answers everything, 1 types `skip all` at the second
/// question (so the second turn is the last), 2 skips the last question.
fn reply_to(script: usize, prompt: &str) -> &'static str {
    match prompt {
        "Where will this service run?" => "2",
        "Who uses the export?" if script == 1 => "skip all",
        "Who uses the export?" => "analysts",
        "Which encodings must be supported?" if script == 2 => "skip",
        "Which encodings must be supported?" => "utf-8",
        _ => "y",
    }
}

const SCRIPTS: usize = 3;

/// A small seeded generator (xorshift64*): the offsets must be reproducible from the seed.
struct Offsets(u64);

impl Offsets {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n.max(1)
    }
}

/// How one run of the tool at the terminal ended.
enum Ended {
    Killed,
    Exited(i32, String),
    /// The tool asked a decision (`--yes` leaves none to ask: an overwrite decision here means a
    /// resume did not know its own document).
    Asked(String),
}

/// Play the person at `pty` until the tool ends; kill it with SIGKILL after `kill_after` (if
/// it is still running then). Typing pauses up to 30 ms before each answer, so kills also land
/// between keystrokes and prompts.
fn drive(
    mut pty: Pty,
    script: usize,
    kill_after: Option<Duration>,
    offsets: &mut Offsets,
) -> Ended {
    let pid = nix::unistd::Pid::from_raw(pty.pid());
    let ended = Arc::new(Mutex::new(false));
    let killer = kill_after.map(|after| {
        let ended = Arc::clone(&ended);
        std::thread::spawn(move || {
            std::thread::sleep(after);
            // Not yet waited for, the pid cannot have been reused: at worst it is a zombie.
            if !*ended.lock().unwrap() {
                let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            }
        })
    });
    let pattern = format!(r"{PROMPTS}[\s\S]*?(> |: )");
    let mut screen = String::new();
    while let Ok(found) = pty.session.expect(Regex(pattern.as_str())) {
        screen.push_str(&String::from_utf8_lossy(found.before()));
        let prompt = String::from_utf8_lossy(found.get(1).unwrap_or_default()).into_owned();
        screen.push_str(&String::from_utf8_lossy(found.get(0).unwrap_or_default()));
        if prompt == "Choose A, B or C" {
            *ended.lock().unwrap() = true;
            if let Some(k) = killer {
                k.join().unwrap();
            }
            pty.kill9();
            return Ended::Asked(screen);
        }
        std::thread::sleep(Duration::from_millis(offsets.below(30)));
        if pty.session.send_line(reply_to(script, &prompt)).is_err() {
            break;
        }
    }
    *ended.lock().unwrap() = true;
    if let Some(k) = killer {
        k.join().unwrap();
    }
    let (code, rest) = pty.finish();
    screen.push_str(&rest);
    if code == 128 + 9 {
        Ended::Killed
    } else {
        Ended::Exited(code, screen)
    }
}

/// Each round's answers as (topic, text, skipped): what the person gave, without the timings.
fn given(repo: &TempRepo) -> Vec<Vec<(String, String, bool)>> {
    let state = repo.state();
    state["rounds"]
        .as_array()
        .expect("rounds")
        .iter()
        .map(|round| {
            round["answers"]
                .as_array()
                .expect("answers")
                .iter()
                .map(|a| {
                    (
                        a["question_id"].as_str().unwrap().to_string(),
                        a["answer_text"].as_str().unwrap().to_string(),
                        a["skipped"].as_bool().unwrap(),
                    )
                })
                .collect()
        })
        .collect()
}

fn session_exists(repo: &TempRepo) -> bool {
    std::fs::read_dir(repo.path().join(".interview/sessions")).is_ok_and(|mut d| {
        d.any(|e| e.is_ok_and(|e| !e.file_name().to_string_lossy().starts_with('.')))
    })
}

/// The interview of the shared work item with the honest runner, at a terminal.
fn start(repo: &TempRepo) -> Pty {
    Interview::of_work_item(repo)
        .runner("honest.sh")
        .without_sandbox()
        .yes()
        .at_terminal()
}

#[test]
fn random_sigkills_while_typing_never_change_the_document() {
    let seed = std::env::var("INTERVIEW_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let wanted: usize = std::env::var("INTERVIEW_KILLS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    println!("random kill -9 test: seed {seed} (INTERVIEW_KILL_SEED={seed} repeats it)");
    let mut offsets = Offsets(seed);
    let began = Instant::now();

    // For each script, the document and answers of an interview that nothing interrupts, and
    // how long one takes.
    let mut whole = Duration::ZERO;
    let mut expected = Vec::new();
    for script in 0..SCRIPTS {
        let reference = TempRepo::new();
        let timed = Instant::now();
        let Ended::Exited(0, _) = drive(start(&reference), script, None, &mut offsets) else {
            panic!("the uninterrupted interview (script {script}) did not finish");
        };
        whole = whole.max(timed.elapsed());
        expected.push((reference.read(DOCUMENT), given(&reference)));
    }
    let mut kills = 0;
    let mut interviews = 0;
    while kills < wanted {
        assert!(
            began.elapsed() < Duration::from_secs(240),
            "seed {seed}: only {kills} kills in {:?}",
            began.elapsed()
        );
        interviews += 1;
        let script = offsets.below(SCRIPTS as u64) as usize;
        let repo = TempRepo::new();
        let mut runs = 0;
        loop {
            runs += 1;
            assert!(runs <= 40, "seed {seed}: interview {interviews} never ends");
            let pty = if session_exists(&repo) {
                Interview::resume(&repo)
                    .without_sandbox()
                    .yes()
                    .at_terminal()
            } else {
                start(&repo)
            };
            // Offsets anywhere in a whole interview: the later ones let a resumed run finish.
            let after = Duration::from_millis(offsets.below(whole.as_millis() as u64 + 1));
            match drive(pty, script, Some(after), &mut offsets) {
                Ended::Killed => {
                    kills += 1;
                    // Killed after it was marked done: nothing is left to resume.
                    if session_exists(&repo) && repo.state()["status"] == "done" {
                        break;
                    }
                }
                Ended::Exited(0, _) => break,
                Ended::Asked(screen) => {
                    panic!(
                        "seed {seed}: interview {interviews} run {runs} asked a decision:\n{screen}"
                    )
                }
                Ended::Exited(code, screen) => {
                    panic!(
                        "seed {seed}: interview {interviews} run {runs} exited {code}:\n{screen}"
                    )
                }
            }
        }
        let (document, answers) = &expected[script];
        assert_eq!(
            &repo.read(DOCUMENT),
            document,
            "seed {seed}: interview {interviews} (script {script}) wrote another document"
        );
        assert_eq!(
            &given(&repo),
            answers,
            "seed {seed}: interview {interviews} (script {script}) lost or changed an answer"
        );
        let written: Vec<String> = std::fs::read_dir(repo.path().join("docs/interviews"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        // No second document, and no temporary file of a killed write left anywhere.
        assert_eq!(
            written,
            ["intent-7.md"],
            "seed {seed}: interview {interviews}"
        );
        let tmp: Vec<_> = std::fs::read_dir(repo.path().join(".interview/tmp"))
            .map(|d| d.map(|e| e.unwrap().file_name()).collect())
            .unwrap_or_default();
        assert!(
            tmp.is_empty(),
            "seed {seed}: interview {interviews}: {tmp:?}"
        );
    }
    println!(
        "random kill -9 test: {kills} kills over {interviews} interviews in {:?} (one whole interview: {whole:?})",
        began.elapsed()
    );
}
