"""Reasoning split, labeled fields, refusals, phrase counts."""

from __future__ import annotations

from mirror_hf.protocol.text import (
    count_phrases,
    is_refusal,
    is_refusal_upstream,
    labeled_field,
    labeled_field_upstream,
    labeled_fields,
    split_reasoning,
    split_reasoning_upstream,
)


def test_think_blocks_are_split_off_and_kept():
    visible, reasoning = split_reasoning("<think>add 2 and 2</think>\nANSWER: 4\n<think>double check</think>")
    assert visible == "ANSWER: 4"
    assert reasoning == "add 2 and 2\n\ndouble check"


def test_unclosed_think_is_all_reasoning():
    # A response cut off while thinking: the half chain of thought is not the answer.
    visible, reasoning = split_reasoning("<think>Okay, the answer might be 7, let me see")
    assert visible == ""
    assert "answer might be 7" in reasoning
    # The authors' split keeps it in the text.
    up_visible, up_reasoning = split_reasoning_upstream("<think>Okay, the answer might be 7")
    assert up_visible.startswith("<think>") and up_reasoning is None


def test_reasoning_content_and_lone_closing_tag():
    visible, reasoning = split_reasoning("ANSWER: 3", reasoning_content="server-side thoughts")
    assert (visible, reasoning) == ("ANSWER: 3", "server-side thoughts")
    visible, reasoning = split_reasoning("thoughts without an opening tag</think>ANSWER: 5")
    assert (visible, reasoning) == ("ANSWER: 5", "thoughts without an opening tag")
    assert split_reasoning(None) == ("", None)


def test_strict_labels_start_a_line_and_tolerate_markdown():
    text = "Some work.\n**ANSWER:** 42\n**BET**: 7\n### Final Answer: 43\nThe ANSWER: 99 in a sentence"
    assert [v for v, _ in labeled_fields(text, "ANSWER")] == ["42", "43"]
    assert labeled_field(text, "BET") == "7"
    assert labeled_field("ANSWER:\n\n  Paris\n", "ANSWER") == "Paris"  # value on the next line
    assert labeled_field("ANSWER: [Paris]", "ANSWER") == "Paris"
    assert labeled_field("no label here", "ANSWER") is None
    assert labeled_fields("ANSWER: 4", "ANSWER") == [("4", True)]  # runs to the end of the text
    assert labeled_fields("ANSWER: 4\nBET: 2", "ANSWER") == [("4", False)]


def test_upstream_label_reads_anywhere_and_runs_to_the_next_label():
    assert labeled_field_upstream("The ANSWER: 99 in a sentence", "ANSWER") == "99 in a sentence"
    assert labeled_field_upstream("ANSWER: Paris\nis the capital\nBET: 4", "ANSWER") == "Paris\nis the capital"
    assert labeled_field_upstream("answer: [x]", "ANSWER") == "x"
    assert labeled_field_upstream("ANSWER: 5\nANSWER: 6", "ANSWER") == "5"


def test_refusals():
    assert is_refusal("I'm sorry, but I can't help with that.")
    assert is_refusal("I cannot assist with this request.")
    assert is_refusal("As an AI language model, I am unable to answer questions about this.")
    # Not refusals: answers that merely contain the upstream phrases.
    assert not is_refusal("I cannot be certain, but the answer is 42.")
    assert not is_refusal("The shelf is not able to hold more than 5 books, so ANSWER: 5")
    assert not is_refusal("ANSWER: It is inappropriate to interrupt.")
    assert not is_refusal("")
    # The authors' detector is a substring list.
    assert is_refusal_upstream("The shelf is not able to hold more than 5 books")
    assert is_refusal_upstream("It is inappropriate to interrupt.")
    assert not is_refusal_upstream("I refuse to believe it")
    assert is_refusal_upstream("I refuse to believe it", matcher=True)


def test_phrase_counts():
    text = "It is unlikely. I think it's likely; probably. However, keep in mind the caveat."
    hedges = ("i think", "likely", "probably")
    assert count_phrases(text, hedges, "upstream") == 4  # "unlikely" holds "likely"
    assert count_phrases(text, hedges, "strict") == 3
    assert count_phrases("It’s possible", ("it's possible",), "strict") == 1  # curly apostrophe
    assert count_phrases(None, hedges) == 0
