"""Properties of the invoicing module, checked on every seed of the corpus and on variants drawn from it.

A seed is a text file: `<currency> <tax rate>` on the first line, then `<label> <amount>` per invoice line.
The corpus is tests/properties/seeds. Under `proofgate check --run` it is the BASE revision's copy, written
read-only under $PROOFGATE_SEEDS_DIR: a patch cannot drop the seed that would have caught it.
This suite is kept out of the proof run (pytest.ini norecursedirs); it runs on its own:
    python3 -m pytest tests/properties
"""
import hashlib
import os
import random
from decimal import Decimal
from pathlib import Path

import pytest

from invoicing.billing import total_with_tax
from invoicing.render import WIDTH, money, render_invoice


def seeds_dir() -> Path:
    base = os.environ.get("PROOFGATE_SEEDS_DIR")
    return Path(base) / "tests/properties/seeds" if base else Path(__file__).parent / "seeds"


SEEDS = sorted(p for p in seeds_dir().iterdir() if p.is_file())


def read_seed(path: Path):
    head, *rows = [r.split() for r in path.read_text().splitlines() if r.strip() and not r.startswith("#")]
    currency, rate = head[0], Decimal(head[1])
    return currency, rate, [(label, Decimal(amount)) for label, amount in rows]


def variants(path: Path, count: int = 50):
    """The seed itself, then `count` variants from a generator seeded by the file's bytes."""
    currency, rate, lines = read_seed(path)
    yield currency, rate, lines
    rng = random.Random(hashlib.sha256(path.read_bytes()).hexdigest())
    for _ in range(count):
        picked = [(label, (amount * Decimal(rng.randint(0, 300)) / 100).quantize(Decimal("0.01"))) for label, amount in lines]
        yield currency, Decimal(rng.randint(0, 25)) / 100, picked[: rng.randint(1, len(picked))]


@pytest.mark.parametrize("seed", SEEDS, ids=[p.name for p in SEEDS])
def test_tax_never_lowers_the_total(seed):
    for _, rate, lines in variants(seed):
        net = sum((a for _, a in lines), Decimal("0"))
        total = total_with_tax(net, rate)
        assert total >= net.quantize(Decimal("0.01"))
        assert total.as_tuple().exponent == -2


@pytest.mark.parametrize("seed", SEEDS, ids=[p.name for p in SEEDS])
def test_rendered_invoice_states_the_total(seed):
    for currency, rate, lines in variants(seed):
        text = render_invoice("P-1", lines, rate, currency)
        rows = text.splitlines()
        assert text.endswith("\n") and len(rows) == len(lines) + 5
        assert all(len(row) <= WIDTH for row in rows)
        net = sum((a for _, a in lines), Decimal("0"))
        assert rows[-1].endswith(money(total_with_tax(net, rate), currency))
        assert render_invoice("P-1", lines, rate, currency) == text
