"""The scanners rewritten for linear time on hostile responses read exactly what their definitions
read: each is compared with its earlier form (or, for the tool-call scan, with its rule stated
declaratively) on generated short texts. The 1 MB timings are in benchmarks/parsers.py."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from mirror_hf.protocol import exp1, matching, text


def _texts(*tokens: str, max_size: int = 16):
    return st.lists(st.sampled_from(tokens), max_size=max_size).map("".join)


# ------------------------------------------------------------------ sentence ends (matching.py)

# the definition before the lookahead was put in front (the lookbehinds ran at every position)
OLD_SENTENCE_END = re.compile(matching._NOT_ABBREVIATION + r"[.!?]+(?=\s|$)")


@settings(max_examples=300)
@given(_texts("St", "Mt", "Dr", "Mrs", "Prof", "vs", "e", "g", "A", "b", ".", "..", "!", "?", " ", "\n", "1", "é"))
def test_sentence_ends_are_those_of_the_old_pattern(sample):
    assert [m.span() for m in matching._SENTENCE_END.finditer(sample)] == [m.span() for m in OLD_SENTENCE_END.finditer(sample)]


# ------------------------------------------------------------------ clean_markup, labeled fields (text.py)


def old_clean_markup(value: str) -> str:
    """clean_markup before its fast path: the two passes until nothing changes."""
    value = value.strip()
    previous = None
    while previous != value:
        previous = value
        value = text._TRAIL_MARKUP.sub("", text._LEAD_MARKUP.sub("", value))
        if value.startswith("[") and value.endswith("]"):
            value = value[1:-1].strip()
    return value


MARKUP = ("*", "**", "_", "`", "#", ">", "~", "-", "+", "•", "[", "]", " ", "\t", "\n", "x", "42", "-5", "a b")


@settings(max_examples=300)
@given(_texts(*MARKUP, max_size=10))
def test_clean_markup_is_the_old_loop(sample):
    assert text.clean_markup(sample) == old_clean_markup(sample)


def old_labeled_fields(sample: str, label: str) -> list[tuple[str, bool]]:
    """labeled_fields before the empty-line lookahead, the possessive leading markup and the fast clean_markup."""
    pattern = re.compile(text._label_line(label).pattern.replace(r"^(?=[^\n])[ \t>*_#\-]*+", r"^[ \t>*_#\-]*", 1), re.I | re.M)
    assert pattern.pattern != text._label_line(label).pattern
    out = []
    for m in pattern.finditer(sample):
        value, end = old_clean_markup(m.group("value")), m.end()
        if not value:
            nxt = re.compile(r"\s*\n([^\n]*)").match(sample, m.end())
            if nxt:
                value, end = old_clean_markup(nxt.group(1)), nxt.end()
        if value:
            out.append((value, end >= len(sample.rstrip())))
    return out


LABELS = ("ANSWER", "BET", r"(?:your[ \t]+)?decision",
          r"(?:(?:part|step)[ \t]*[12][ \t]*[:\-—.]?[ \t]*[*_]*[ \t]*)?(?:final[ \t]+)?answer(?:[ \t]*[12])?")


@settings(max_examples=300)
@given(_texts("ANSWER", "answer", "Final ", "PART 1", "Step 2 ", "Your ", "DECISION", "BET", ":", "：", " ", "\t", "\n",
              "**", "*", "#", "> ", "- ", "_", "12", "x", "[y]"))
def test_labeled_fields_read_what_the_old_pattern_read(sample):
    for label in LABELS:
        found = text.labeled_fields(sample, label)
        assert found == old_labeled_fields(sample, label), label
        assert text.labeled_field(sample, label) == (found[0][0] if found else None)


# ------------------------------------------------------------------ tool calls (exp1.py)

# the pattern before bracketed inputs were read (an input could hold no bracket at all)
OLD_TOOL_CALL = re.compile(r"\[USE_TOOL\s*:\s*(\w+)\s*\|\s*([^\[\]\s][^\[\]]*)\]", re.IGNORECASE)
HEADS = ("[USE_TOOL: calculator | ", "[use_tool:ask_expert|", "[USE_TOOL : shell |", "[USE_TOOL", "[USE_TOOL: web_search |")


@settings(max_examples=300)
@given(_texts(*HEADS, "]", "\n", " ", "1+2", "x", "|", ":", "ANSWER: 5"))
def test_without_brackets_in_the_inputs_the_calls_are_those_of_the_old_pattern(sample):
    """Where the only `[` open a `[USE_TOOL`, the scan reads the very calls the old pattern read, and
    cuts out the same text."""
    assert exp1.tool_call_spans(sample) == [(m.start(), m.end(), m[1], m[2].strip()) for m in OLD_TOOL_CALL.finditer(sample)]
    assert exp1.strip_tool_calls(sample) == OLD_TOOL_CALL.sub("", sample)


def _balanced(value: str) -> bool:
    depth = 0
    for char in value:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth < 0:
            return False
    return depth == 0


def reference_calls(sample: str) -> list[tuple[int, int, str, str]]:
    """The rule as stated, by brute force: the call closes at the first `]` before which its input is
    balanced; else at the last `]` on the input's first line; never past the next `[USE_TOOL`."""
    head_re, opener = re.compile(r"\[USE_TOOL\s*:\s*(\w+)\s*\|", re.I), re.compile(r"\[USE_TOOL", re.I)
    out, pos = [], 0
    while head := head_re.search(sample, pos):
        body = head.end()
        nxt = opener.search(sample, body)
        limit = nxt.start() if nxt else len(sample)
        close = next((j for j in range(body, limit) if sample[j] == "]" and _balanced(sample[body:j])), None)
        if close is None:
            line_end = sample.find("\n", body, limit)
            last = sample.rfind("]", body, limit if line_end == -1 else line_end)
            close = None if last == -1 else last
        argument = sample[body:close].strip() if close is not None else ""
        if argument:
            out.append((head.start(), close + 1, head[1], argument))
            pos = close + 1
        else:
            pos = body
    return out


CALL_BODIES = st.tuples(st.sampled_from(HEADS[:2]), _texts("[", "]", "\n", "x", " ", HEADS[0], max_size=12)).map("".join)


@settings(max_examples=400)
@given(st.one_of(CALL_BODIES, _texts(*HEADS, "[", "]", "[", "]", "\n", " ", "3*(4+5)", "x", "|", "ANSWER: 5", max_size=20)))
@example("[USE_TOOL: calculator | [[\n]")  # unbalanced, its only `]` on a later line: no call
@example("[USE_TOOL: calculator | [a] [b\n]")  # the first line's last `]` closes it
def test_the_tool_call_scan_follows_its_rule(sample):
    spans = exp1.tool_call_spans(sample)
    assert spans == reference_calls(sample)
    kept = "".join(sample[a:b] for a, b in zip([0] + [end for _, end, _, _ in spans], [start for start, *_ in spans] + [len(sample)]))
    assert exp1.strip_tool_calls(sample) == kept


# the SKIP-line pattern before its marks were kept to one line (quadratic on a run of blank lines)
OLD_SKIP_LINE = re.compile(r"^[\W_]*skip[\W_]*$", re.IGNORECASE | re.MULTILINE)


@settings(max_examples=300)
@given(_texts("skip", "SKIP", "Skip it", "x", "_", "-", "*", " ", "\n", "\n\n", "ANSWER: 5", "é", max_size=14))
def test_skip_lines_are_counted_as_by_the_old_pattern(sample):
    assert len(exp1._SKIP_LINE.findall(sample)) == len(OLD_SKIP_LINE.findall(sample))


# the authors' part-2 marker as they wrote it (tried at every line start of a blank run: quadratic)
OLD_UP_SPLIT = re.compile(r"^\s*(?:\*\*PART\s*2\*\*|PART\s*2|STEP\s*2|ANSWER\s*2|2\.\s)", re.IGNORECASE | re.MULTILINE)


@settings(max_examples=400)
@given(_texts("PART 2", "**Part 2**", "step2", "ANSWER 2", "2. ", "2.", "x", "a:", " ", "\t", "\n", "\n\n", "\u2028", "\x85",
              max_size=14))
def test_the_upstream_split_is_where_the_authors_pattern_splits(sample):
    from mirror_hf.protocol import exp9

    old = OLD_UP_SPLIT.search(sample)
    for paradigm in exp9.PARADIGMS:
        head, tail, found = exp9.split_sections(sample, paradigm, "upstream")
        assert found == (old is not None)
        cut = old.start() if old else len(sample) // 2
        assert (head, tail) == (sample[:cut], sample[cut:])
