def total(prices, discount=0):
    result = 0
    for p in prices:
        if p < 0:
            raise ValueError("negative price")
        result += p
    if discount:
        result = result * (100 - discount) / 100
    return result


def describe(items):
    if not items:
        return "empty"
    elif len(items) == 1:
        return "one item"
    return f"{len(items)} items"


def never_called(x):
    if x:
        return 1
    return 2  # pragma: no cover
