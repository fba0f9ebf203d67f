from invoicing.cache import Cache


def test_get_default():
    assert Cache().get("missing", 7) == 7


def test_stampede_window():
    # Frozen in freeze.toml: timing-dependent under load.
    cache = Cache()
    cache.put("k", 1)
    assert cache.get("k") == 1
