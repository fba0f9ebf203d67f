"""A stand-in cache whose stampede test is flaky under load."""


class Cache:
    def __init__(self) -> None:
        self._data: dict[str, object] = {}

    def get(self, key: str, default: object = None) -> object:
        return self._data.get(key, default)

    def put(self, key: str, value: object) -> None:
        self._data[key] = value
