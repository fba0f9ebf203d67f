def money(cents):
    sign = "-" if cents < 0 else ""
    cents = abs(cents)
    return f"{sign}{cents // 100}.{cents % 100:02d}"


def unused():
    while True:
        break
    return None


class Money:
    """An amount in cents."""

    def __init__(self, cents):
        self.cents = cents
