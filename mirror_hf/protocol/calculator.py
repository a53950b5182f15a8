"""The tool-delegation channel's calculator (mirror-protocol.md §2 Ch4): a safe arithmetic evaluator.

The model's expression is parsed with `ast` and walked over a whitelist: numbers, `+ - * / ** % //`,
unary `+`/`-`, parentheses and calls to `sqrt`, `abs`, `round`. Everything else — names,
attributes, subscripts, other calls, strings, comparisons, lambdas — is rejected with an error
string, never evaluated. Time and memory are bounded by a limit on the expression length, the
number of AST nodes and the size of every intermediate integer (so `9**9**9` is refused before it is
computed). `eval` is never used.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

from mirror_hf.errors import MirrorValueError

MAX_EXPRESSION_CHARS = 500
MAX_NODES = 200
MAX_INT_BITS = 4096  # ~1233 decimal digits: far beyond any bank answer, far below a slow bignum
MAX_ABS_FLOAT = 1e300

_BINARY = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[int | float], int | float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
_FUNCTIONS = {"sqrt": (1, 1), "abs": (1, 1), "round": (1, 2)}
_SYMBOLS = {"×": "*", "÷": "/", "−": "-", "–": "-"}


class CalculatorError(MirrorValueError):
    """The expression is not allowed or cannot be evaluated; the message says why."""


def _check_size(value: int | float) -> int | float:
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise CalculatorError(f"result too large (more than {MAX_INT_BITS} bits)")
        return value
    if not math.isfinite(value) or abs(value) > MAX_ABS_FLOAT:
        raise CalculatorError("result is not a finite number in range")
    return value


def _power(base: int | float, exponent: int | float) -> int | float:
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0 and abs(base) > 1:
        if exponent * base.bit_length() > MAX_INT_BITS + 64:
            raise CalculatorError("exponent too large")
    elif abs(exponent) > 10_000:
        raise CalculatorError("exponent too large")
    if base == 0 and exponent < 0:
        raise CalculatorError("division by zero")
    try:
        result = base**exponent
    except OverflowError:
        raise CalculatorError("result too large") from None
    if isinstance(result, complex):
        raise CalculatorError("result is not a real number")
    return result


def _call(name: str, args: list[int | float]) -> int | float:
    if name == "sqrt":
        if args[0] < 0:
            raise CalculatorError("sqrt of a negative number")
        return math.sqrt(args[0])
    if name == "abs":
        return abs(args[0])
    if len(args) == 2:
        if not isinstance(args[1], int) or abs(args[1]) > 15:
            raise CalculatorError("round() digits must be an integer between -15 and 15")
        return round(args[0], args[1])
    return round(args[0])


def _evaluate(node: ast.AST) -> int | float:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise CalculatorError(f"only numbers are allowed, not {type(node.value).__name__}")
        return _check_size(node.value)
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _check_size(_UNARY[type(node.op)](_evaluate(node.operand)))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _check_size(_power(left, right))
        if isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)) and right == 0:
            raise CalculatorError("division by zero")
        try:
            return _check_size(_BINARY[type(node.op)](left, right))
        except OverflowError:
            raise CalculatorError("result too large") from None
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise CalculatorError("only sqrt, abs and round may be called")
        if node.keywords:
            raise CalculatorError("keyword arguments are not allowed")
        low, high = _FUNCTIONS[node.func.id]
        if not low <= len(node.args) <= high:
            raise CalculatorError(f"{node.func.id}() takes {low}-{high} argument(s)")
        args = [_evaluate(a) for a in node.args]
        try:
            return _check_size(_call(node.func.id, args))
        except OverflowError:
            raise CalculatorError("number too large for this function") from None
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
        raise CalculatorError(f"operator {type(node.op).__name__} is not allowed")
    if isinstance(node, ast.Name):
        raise CalculatorError(f"names are not allowed ({node.id!r})")
    if isinstance(node, ast.Attribute):
        raise CalculatorError("attribute access is not allowed")
    raise CalculatorError(f"{type(node).__name__} is not allowed")


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression, or CalculatorError."""
    if not isinstance(expression, str):
        raise CalculatorError("expression must be text")
    text = expression.strip()
    for symbol, ascii_op in _SYMBOLS.items():
        text = text.replace(symbol, ascii_op)
    if not text:
        raise CalculatorError("empty expression")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"expression longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise CalculatorError("not a valid arithmetic expression") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise CalculatorError(f"expression has more than {MAX_NODES} parts")
    try:
        return _evaluate(tree)
    except RecursionError:
        raise CalculatorError("expression nested too deeply") from None


def format_number(value: int | float) -> str:
    """Floats rounded to 6 decimals; integral values printed without a decimal point (as upstream)."""
    if isinstance(value, float):
        value = round(value, 6)
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


def calculate(expression: str) -> str:
    """The tool's reply to the model: the value as text, or "Error: <why>"."""
    try:
        return format_number(evaluate(expression))
    except CalculatorError as exc:
        return f"Error: {exc}"
