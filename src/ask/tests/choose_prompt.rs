//! Unit tests of the Choose prompt: a letter in either case, asked again at a terminal, a bad
//! replayed letter refused, two to four options, an interrupt.

use super::*;

fn decision(n: usize) -> Decision {
    Decision {
        id: DecisionId::Guard,
        context: "the runner changed the repository".into(),
        options: (0..n).map(|i| format!("option {i}")).collect(),
        recommended: 0,
        reason: "safe".into(),
    }
}

#[test]
fn choose_takes_a_letter_in_either_case() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, " b ")]);
    assert_eq!(choose(&mut p, &decision(3)).unwrap(), 1);
}

#[test]
fn choose_asks_again_at_a_terminal_on_anything_else() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(
        &clock,
        &[Type(0, "x"), Type(0, "D"), Type(0, "ab"), Type(0, "C")],
    );
    assert_eq!(choose(&mut p, &decision(3)).unwrap(), 2);
    assert_eq!(p.shown.iter().filter(|s| s.starts_with("say ")).count(), 3);
}

#[test]
fn choose_refuses_a_bad_replayed_letter_instead_of_looping() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Type(0, "D")]);
    p.replayed = true;
    let e = choose(&mut p, &decision(2)).unwrap_err();
    assert!(e.to_string().contains("decisions.guard"), "{e}");
}

#[test]
fn choose_needs_two_to_four_options() {
    let clock = ManualClock::new(0);
    for n in [0, 1, 5] {
        let mut p = Scripted::new(&clock, &[Type(0, "A")]);
        assert!(choose(&mut p, &decision(n)).is_err(), "{n} options");
    }
}

#[test]
fn choose_interrupt_is_returned() {
    let clock = ManualClock::new(0);
    let mut p = Scripted::new(&clock, &[Interrupt]);
    assert!(matches!(
        choose(&mut p, &decision(2)),
        Err(AskError::Interrupted)
    ));
}
