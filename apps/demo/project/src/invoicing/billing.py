"""A tiny invoicing module: the code under test in proofgate's demo."""
from decimal import ROUND_HALF_EVEN, Decimal


def total_with_tax(net: Decimal, rate: Decimal) -> Decimal:
    if net < 0:
        raise ValueError("net must not be negative")
    return (net * (1 + rate)).quantize(Decimal("0.01"))


def round_currency(amount: Decimal, currency: str) -> Decimal:
    # Reached only by the frozen test: its lines are not proven.
    if currency == "JPY":
        return amount.quantize(Decimal("1"), rounding=ROUND_HALF_EVEN)
    return amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
