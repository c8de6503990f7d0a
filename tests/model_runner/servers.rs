//! What the model runner does with what servers do: 429 and 5xx retried, a context overflow failed
//! at once, no tool support, a streamed answer and text around the receipt.

use super::*;

#[test]
fn busy_and_failing_servers_are_retried_and_the_turn_goes_on() {
    let repo = TempRepo::new();
    let mock = MockChat::start(vec![
        Step::Status(429, "Rate limit reached for requests".into()),
        Step::Status(
            500,
            "The server had an error while processing your request".into(),
        ),
        Step::Status(503, "overloaded".into()),
        Step::Receipt(wire(ASK)),
        Step::Receipt(wire(DONE)),
    ]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let notes = out.events("runner_note");
    assert_eq!(notes.len(), 3, "{notes:#?}");
    assert!(
        notes[0]["text"]
            .as_str()
            .unwrap()
            .contains("answered 429: Rate limit reached")
    );
    assert!(notes[1]["text"].as_str().unwrap().contains("answered 500"));
}

#[test]
fn a_conversation_too_long_for_the_model_fails_at_once_with_the_servers_reason() {
    let repo = TempRepo::new();
    let overflow = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.";
    let mock = MockChat::start(vec![Step::Status(400, overflow.into())]);
    let out = against(interview(&repo), &mock, &[]).run().exits(4);
    assert!(
        out.stderr
            .contains("the conversation no longer fits the model's context (400)")
            && out.stderr.contains("maximum context length is 8192"),
        "{}",
        out.stderr
    );
    assert_eq!(
        mock.seen().len(),
        1,
        "a 400 is not retried, by the runner nor the session"
    );
}

#[test]
fn a_server_without_tool_calls_gets_one_prompt_with_the_briefs_facts() {
    let repo = TempRepo::new();
    let mock = MockChat::without_tools(vec![Step::Receipt(wire(ASK)), Step::Receipt(wire(DONE))]);
    let out = against(interview(&repo), &mock, &[]).run().exits(0);
    let seen = mock.seen();
    assert_eq!(seen[0].status, 400);
    assert!(seen[1].body.get("tools").is_none(), "{}", seen[1].body);
    assert!(
        seen[1].body["messages"][1]["content"]
            .as_str()
            .unwrap()
            .contains("Export to CSV"),
        "the brief with the work item goes along"
    );
    let notes = out.events("runner_note");
    assert!(
        notes[0]["text"]
            .as_str()
            .unwrap()
            .contains("does not take tool calls"),
        "{notes:#?}"
    );
}

#[test]
fn a_streamed_answer_and_text_around_the_receipt_are_taken_like_a_whole_one() {
    let repo = TempRepo::new();
    let fenced = format!("Here it is:\n```json\n{}\n```\n", wire(DONE));
    let mock = MockChat::start(vec![
        Step::Calls(vec![call(
            "read_file",
            json!({"path": "README.md", "start_line": 1, "end_line": 1}),
        )]),
        Step::Receipt(wire(ASK)),
        Step::Text(fenced),
    ]);
    against(interview(&repo), &mock, &["--stream"])
        .run()
        .exits(0);
    assert_eq!(mock.refusals(), Vec::<String>::new());
    assert!(mock.seen().iter().all(|s| s.body["stream"] == true));
    assert_eq!(
        tool_results(&mock)[0],
        "README.md (lines 1-1 of 3)\n1: # test repo\n"
    );
}
