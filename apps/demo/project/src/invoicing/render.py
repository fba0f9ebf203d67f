"""Renders an invoice as plain text. The golden files in tests/fixtures pin the layout."""
from datetime import date, timedelta
from decimal import Decimal

from invoicing.billing import total_with_tax

WIDTH = 32


def money(amount: Decimal, currency: str) -> str:
    return f"{amount:.2f} {currency}"


def render_invoice(number: str, lines: list[tuple[str, Decimal]], rate: Decimal, currency: str = "EUR") -> str:
    net = sum((amount for _, amount in lines), Decimal("0"))
    out = [f"INVOICE {number}", "-" * WIDTH]
    for label, amount in lines:
        out.append(f"{label:<16}{money(amount, currency):>16}")
    out.append("-" * WIDTH)
    out.append(f"{'Net':<16}{money(net, currency):>16}")
    out.append(f"{'Total incl. tax':<16}{money(total_with_tax(net, rate), currency):>16}")
    return "\n".join(out) + "\n"


def due_date(issued: date, terms_days: int = 30) -> date:
    if terms_days < 0:
        raise ValueError("payment terms must not be negative")
    return issued + timedelta(days=terms_days)
