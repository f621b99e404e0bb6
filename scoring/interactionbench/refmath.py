"""Exact arithmetic that reproduces the reference scorer bit for bit, faster than `statistics.mean`.

`statistics.mean` sums exactly (as rationals) and rounds the exact mean once to the nearest double;
so do these helpers, with integer arithmetic instead of Fractions (CPython's int / int is correctly
rounded, which is exactly what `float(Fraction)` does)."""
from __future__ import annotations

import math
from typing import Optional, Sequence


def _int_mean(xs: Sequence[int]) -> float | int:
    """statistics.mean over ints: an int when the mean is whole, else the correctly rounded float."""
    s = sum(xs)
    n = len(xs)
    q, r = divmod(s, n)
    return q if r == 0 else s / n


def _ratio_mean(xs: Sequence[float | int], n: int) -> float:
    """The correctly rounded exact mean via integer ratios (float denominators are powers of two); with an
    infinity or NaN among xs, what statistics.mean gives (inf, -inf or nan, as the reference writes it)."""
    if not all(map(math.isfinite, xs)):
        import statistics
        return statistics.mean(xs)
    total, den = 0, 1
    for x in xs:
        a, b = x.as_integer_ratio()
        if b == den:
            total += a
        elif b > den:
            total = total * (b // den) + a
            den = b
        else:
            total += a * (den // b)
    return total / (den * n)


def exact_mean(xs: Sequence[float | int]) -> float | int:
    """Bit-identical to `statistics.mean(xs)` for finite ints/floats (not bools); xs must be non-empty."""
    n = len(xs)
    if n == 1:
        x = xs[0]
        return x if type(x) is int else x + 0.0  # statistics turns -0.0 into 0.0
    for x in xs:
        if type(x) is not int:
            break
    else:
        return _int_mean(xs)
    if n & (n - 1) == 0:
        # n is a power of two: fsum is the correctly rounded sum and dividing by n is exact
        # (barring subnormals, excluded below), so there is one rounding, as in statistics.mean.
        m = (xs[0] + xs[1]) / 2 if n == 2 else sum(xs) / n if not all(map(math.isfinite, xs)) else math.fsum(xs) / n
        if m == 0.0 or 1e-290 < abs(m) < 1e300:
            return m + 0.0
    return _ratio_mean(xs, n)


def mean_round3(xs: Sequence[float], nonneg: bool) -> float:
    """round(statistics.mean(xs), 3) for floats: a naive sum decides unless it lies within its error
    bound ((2n + 8) ulps) of a rounding boundary, in which case the exact mean decides."""
    n = len(xs)
    if nonneg and n > 1:
        m = sum(xs) / n
        if math.isfinite(m):
            tol = (2 * n + 8) * math.ulp(m)
            if round(m - tol, 3) == round(m + tol, 3):
                return round(m, 3)
    return round(exact_mean_big(xs, False), 3)


def exact_mean_big(xs: Sequence[float | int], all_int: Optional[bool] = None) -> float | int:
    """`exact_mean` for long lists: the exact sum is S + R with S = fsum(xs), R = fsum(xs - S)
    (checked exactly: fsum(xs - S - R) == 0), then one correctly rounded division by n."""
    n = len(xs)
    if all_int is None:
        all_int = all(type(x) is int for x in xs)
    if all_int:
        return _int_mean(xs)
    if n < 8:
        return exact_mean(xs)
    try:
        s = math.fsum(xs)
    except ValueError:  # inf and -inf among xs
        return _ratio_mean(xs, n)
    if not math.isfinite(s):
        return _ratio_mean(xs, n)
    ext = list(xs)
    ext.append(-s)
    r = math.fsum(ext)
    ext.append(-r)
    if math.fsum(ext) != 0.0:  # exact sum needs more than two doubles: do it the slow exact way
        return _ratio_mean(xs, n)
    return _two_term_mean(s, r, n)


def _two_term_mean(s: float, r: float, n: int) -> float:
    (sn, sd), (rn, rd) = s.as_integer_ratio(), r.as_integer_ratio()
    den = max(sd, rd)
    return (sn * (den // sd) + rn * (den // rd)) / (den * n)


def hmean(a: Optional[float], b: Optional[float]) -> Optional[float]:
    """Reference harmonic mean of two already-rounded axes: the other when one is None, 0.0 when both 0."""
    if a is None:
        return b
    if b is None:
        return a
    if a + b == 0:
        return 0.0
    return round(2 * a * b / (a + b), 1)


def total_of(*axes: Optional[float]) -> float:
    """Reference total: the mean of the defined axes rounded to 1 decimal, 0.0 when none is defined."""
    vals = [x for x in axes if x is not None]
    return round(exact_mean(vals), 1) if vals else 0.0
