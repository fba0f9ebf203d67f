import sys
sys.path.insert(0, ".")
from tests import test_cart
for name in ("test_total", "test_discount", "test_describe", "test_money"):
    getattr(test_cart, name)()
