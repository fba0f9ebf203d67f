from shop.cart import total, describe
from shop.util.fmt import money


def test_total():
    assert total([1, 2, 3]) == 6


def test_discount():
    assert total([100], discount=10) == 90


def test_describe():
    assert describe([]) == "empty"
    assert describe([1, 2]) == "2 items"


def test_money():
    assert money(1234) == "12.34"
