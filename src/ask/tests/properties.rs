//! Property tests over random scripts and inputs: every round's result passes its quality checks,
//! no skipped answer carries text, only the offered letters are read; an option is its place.

use super::*;

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (
            0u64..200_000,
            prop::sample::select(vec![
                "",
                "skip",
                "s",
                "skip all",
                "s all",
                "1",
                "2",
                "3",
                "0",
                "r",
                "@recommended",
                "free text",
                "  Y ",
                "n",
            ])
        )
            .prop_map(|(ms, t)| Type(ms, t)),
        Just(Interrupt),
    ]
}

proptest! {
    #[test]
    fn every_round_result_passes_its_quality_checks(
        n in 0usize..6,
        opts in prop::collection::vec(any::<bool>(), 6),
        steps in prop::collection::vec(step(), 0..10),
    ) {
        let questions: Vec<Question> = (0..n)
            .map(|i| {
                let t = format!("t{i}");
                if opts[i] { with_options(&t, Some("vm")) } else { open(&t) }
            })
            .collect();
        let r = run(&questions, &steps);
        match &r.outcome {
            Ok(o) => {
                prop_assert!(o.check().is_ok());
                if let Some(qa) = &o.qa_session_result {
                    prop_assert!(qa.check().is_ok());
                    prop_assert_eq!(&qa.answers, &r.persisted);
                }
            }
            // Only running out of script (Closed) may end a round without a result.
            Err(e) => prop_assert!(matches!(e, AskError::Closed), "{}", e),
        }
    }

    #[test]
    fn classification_never_yields_a_skipped_answer_with_text(raw in ".{0,40}") {
        let q = with_options("t", Some("vm"));
        match classify_reply(&raw, &q) {
            Reply::Answer(text) => prop_assert!(!text.is_empty()),
            Reply::Skip | Reply::SkipAll => {}
            Reply::NoRecommendation => prop_assert!(false, "{raw:?}: this question has a recommendation"),
            Reply::NoSuchOption { options } => {
                prop_assert_eq!(options, 2);
                prop_assert!(raw.trim().bytes().all(|b| b.is_ascii_digit()));
            }
        }
    }

    #[test]
    fn parse_letter_accepts_exactly_the_offered_letters(raw in ".{0,3}", n in 2usize..=4) {
        if let Some(i) = parse_letter(&raw, n) {
            prop_assert!(i < n);
            prop_assert_eq!(raw.trim().to_ascii_uppercase(), render::letter(i).to_string());
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Letters {
    A,
    B,
}

impl Options for Letters {
    const ALL: &'static [Letters] = &[Letters::A, Letters::B];
}

#[test]
fn an_option_is_its_place_and_no_place_past_the_last_is_an_option() {
    assert_eq!(Letters::B.index(), 1);
    assert_eq!(Letters::at(0).unwrap(), Letters::A);
    assert!(matches!(Letters::at(2), Err(AskError::Inconsistent(_))));
}
