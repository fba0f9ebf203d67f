from decimal import Decimal

import pytest

from invoicing.billing import round_currency, total_with_tax


def test_total_with_tax():
    assert total_with_tax(Decimal("100"), Decimal("0.2")) == Decimal("120.00")


def test_negative_net_is_refused():
    with pytest.raises(ValueError):
        total_with_tax(Decimal("-1"), Decimal("0.2"))


def test_invoice_total_currency_round():
    # Frozen in freeze.toml: flaky on CI runners near a time-zone boundary.
    assert round_currency(Decimal("1.005"), "EUR") == Decimal("1.00")
    assert round_currency(Decimal("2.5"), "JPY") == Decimal("2")


def test_invoice_total_currency_round_half():
    # Shares a prefix with the frozen test: pytest's --deselect would drop it too.
    assert total_with_tax(Decimal("0.5"), Decimal("0")) == Decimal("0.50")
