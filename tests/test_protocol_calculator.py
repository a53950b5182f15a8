"""The tool channel's calculator: arithmetic is evaluated, everything else is refused with an
error string, in bounded time and memory. Expected values are worked out by hand.

Expressions that could run away are evaluated in a forked child with a deadline (`guarded`): a
calculator whose bounds break fails here within seconds instead of stalling the suite until the
pytest timeout, and the child sees exactly the code under test (a mutant included)."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

from mirror_hf.protocol.calculator import CalculatorError, calculate, evaluate


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 + 3 * 4", "14"),
        ("(2 + 3) * 4", "20"),
        ("10 - 4 - 3", "3"),
        ("-5 + 2", "-3"),
        ("-(2 + 3)", "-5"),
        ("+7", "7"),
        ("2 ** 10", "1024"),
        ("2 ** -1", "0.5"),
        ("17 % 5", "2"),
        ("17 // 5", "3"),
        ("-17 // 5", "-4"),
        ("7 / 2", "3.5"),
        ("6 / 3", "2"),  # an integral float prints as an integer
        ("1 / 3", "0.333333"),  # six decimals
        ("sqrt(16)", "4"),
        ("sqrt(2)", "1.414214"),
        ("abs(-3.5)", "3.5"),
        ("round(3.14159, 2)", "3.14"),
        ("round(7.6)", "8"),
        ("12.5 * 48", "600"),
        ("3 × 4 ÷ 2", "6"),  # the model's typographic operators
        ("((((1 + 1))))", "2"),
    ],
)
def test_arithmetic_is_evaluated(expression, expected):
    assert calculate(expression) == expected


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("__import__('os').system('echo pwned')", "only sqrt, abs and round"),
        ("open('/etc/passwd').read()", "only sqrt, abs and round"),
        ("x + 1", "names are not allowed"),
        ("pi * 2", "names are not allowed"),
        ("(1).__class__", "attribute"),
        ("eval('1+1')", "only sqrt, abs and round"),
        ("[1, 2][0]", "not allowed"),
        ("'a' * 3", "only numbers"),
        ("True + 1", "only numbers"),
        ("lambda: 1", "not allowed"),
        ("1 if 1 else 2", "not allowed"),
        ("2 ^ 3", "BitXor"),
        ("1 < 2", "not allowed"),
        ("abs(x=1)", "keyword"),
        ("round(1, 2, 3)", "argument"),
        ("round(1.5, 0.5)", "digits must be an integer"),
        ("1 / 0", "division by zero"),
        ("5 % 0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("sqrt(-4)", "negative"),
        ("(-8) ** 0.5", "not a real number"),
        ("1e308 * 10", "not a finite number"),
        ("", "empty"),
        ("1 +", "not a valid arithmetic expression"),
    ],
)
def test_everything_else_is_an_error_string(expression, reason):
    result = calculate(expression)
    assert result.startswith("Error: ")
    assert reason in result


GUARD_SECONDS = 10  # generous on two loaded cores; every bounded case here takes milliseconds


def _child(expressions, conn):
    conn.send([calculate(e) for e in expressions])
    conn.close()


def guarded(*expressions: str) -> list[str]:
    """calculate() of each expression in a forked child, killed after GUARD_SECONDS."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(expressions, send), daemon=True)
    child.start()
    send.close()
    ready = receive.poll(GUARD_SECONDS)
    results = receive.recv() if ready else None
    child.join(1)
    if child.is_alive():
        child.kill()
        child.join()
    if results is None:
        pytest.fail(f"calculate{expressions} did not return within {GUARD_SECONDS} s: the calculator's bounds are broken")
    return results


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("9 ** 9 ** 9", "exponent too large"),
        ("2 ** 100000", "exponent too large"),  # refused before computing, not after (3 ms vs 0)
        ("10 ** 10 ** 10", "exponent too large"),
        ("(10 ** 400) ** 400", "exponent too large"),
        ("2.5 ** 20000", "exponent too large"),
        ("(-3) ** 5000", "exponent too large"),
        ("sqrt(10 ** 1000)", "too large"),
        ("9 ** 999 * 9 ** 999 * 9 ** 999", "result too large"),  # each factor fits; the product does not
    ],
)
def test_huge_numbers_are_refused_by_the_bounds(expression, reason):
    (result,) = guarded(expression)
    assert result.startswith("Error: ") and reason in result, result


def test_large_but_allowed_powers_are_exact():
    # within the bounds the value is exact: 2**2000 has 2001 bits (< 4096)
    two, minus_one, half = guarded("2 ** 2000", "(-1) ** 9999", "0.5 ** 3")
    assert two == str(2**2000) and minus_one == "-1" and half == "0.125"


def test_the_guard_itself_fails_a_hang(monkeypatch):
    import mirror_hf.protocol.calculator as calc

    monkeypatch.setattr(calc, "MAX_INT_BITS", 10**12)  # a calculator with its bounds lifted
    monkeypatch.setattr(sys.modules[__name__], "GUARD_SECONDS", 1)
    with pytest.raises(pytest.fail.Exception, match="did not return"):
        guarded("9 ** 9 ** 9")


def test_long_and_deep_expressions_are_bounded():
    assert "longer than" in calculate("1 + " * 200 + "1")
    assert calculate("(" * 100 + "1" + ")" * 100) == "1"
    assert calculate("-" * 60 + "1") == "1"  # an even number of minus signs, within the node limit
    assert "parts" in calculate("+".join(["1"] * 120))  # more than 200 AST nodes


def test_injection_text_never_executes(tmp_path):
    marker = tmp_path / "pwned"
    result = calculate(f"__import__('pathlib').Path({str(marker)!r}).touch()")
    assert result.startswith("Error: ")
    assert not marker.exists()


def test_evaluate_raises_and_returns_numbers():
    assert evaluate("2 * 21") == 42
    assert isinstance(evaluate("2 * 21"), int)
    with pytest.raises(CalculatorError):
        evaluate("os.system('ls')")
