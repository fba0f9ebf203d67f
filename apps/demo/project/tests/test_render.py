from datetime import date
from decimal import Decimal
from pathlib import Path

from invoicing.render import due_date, render_invoice

FIXTURES = Path(__file__).parent / "fixtures"


def test_render_eur_invoice():
    lines = [("Consulting", Decimal("1200.00")), ("Travel", Decimal("84.50"))]
    assert render_invoice("2026-0042", lines, Decimal("0.2")) == (FIXTURES / "invoice_eur.txt").read_text()


def test_render_jpy_invoice():
    lines = [("Licence", Decimal("150000")), ("Support", Decimal("12500"))]
    assert render_invoice("2026-0043", lines, Decimal("0.1"), "JPY") == (FIXTURES / "invoice_jpy.txt").read_text()


def test_render_due_date():
    assert due_date(date(2026, 1, 31)) == date(2026, 3, 2)
